import fc from 'fast-check';
import { refundFailedLines, refundFunding } from '../../src/modules/refunds/refund.rules.js';

const cents = fc.integer({ min: 0, max: 10_000_000_000 });

describe('refund funding', () => {
  it('takes available first, then reserves, exactly the amount, never more than either holds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000_000 }), cents, cents, (amount, available, heldInReserves) => {
        const funding = refundFunding(amount, { available, heldInReserves });
        if (available + heldInReserves < amount) return funding === null;
        return (
          funding !== null &&
          funding.fromAvailable + funding.fromReserves === amount &&
          funding.fromAvailable === Math.min(available, amount) &&
          funding.fromReserves <= heldInReserves &&
          (funding.fromReserves === 0 || funding.fromAvailable === available)
        );
      }),
    );
  });

  it.each([
    [4_658, 10_000, 0, { fromAvailable: 4_658, fromReserves: 0 }],
    [4_658, 2_089, 6_747, { fromAvailable: 2_089, fromReserves: 2_569 }],
    [4_658, 0, 4_658, { fromAvailable: 0, fromReserves: 4_658 }],
    [4_658, 0, 4_178, null],
  ])('refunds %i from %i available and %i held as %j', (amount, available, heldInReserves, expected) => {
    expect(refundFunding(amount, { available, heldInReserves })).toEqual(expected);
  });
});

describe('a failed refund\'s posting', () => {
  it('gives the reserves\' shares back to reserved and only the rest to available, balanced, with no zero lines', () => {
    expect(refundFailedLines(4_658, 160)).toEqual([
      { account: 'refunds_in_flight', amount: -4_658 },
      { account: 'reserved', amount: 160 },
      { account: 'available', amount: 4_498 },
    ]);
    expect(refundFailedLines(4_658, 0)).toEqual([
      { account: 'refunds_in_flight', amount: -4_658 },
      { account: 'available', amount: 4_658 },
    ]);
    expect(refundFailedLines(4_658, 4_658)).toEqual([
      { account: 'refunds_in_flight', amount: -4_658 },
      { account: 'reserved', amount: 4_658 },
    ]);
  });

  it('takes a refund that failed after it completed back from processor clearing, where its completion sent it', () => {
    expect(refundFailedLines(4_658, 160, 'processor_clearing')).toEqual([
      { account: 'processor_clearing', amount: -4_658 },
      { account: 'reserved', amount: 160 },
      { account: 'available', amount: 4_498 },
    ]);
  });

  it('refuses shares that do not fit in the refund', () => {
    expect(() => refundFailedLines(100, 101)).toThrow(RangeError);
    expect(() => refundFailedLines(100, -1)).toThrow(RangeError);
  });
});
