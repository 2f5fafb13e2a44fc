import fc from 'fast-check';
import { applyRate, centsToDecimalString, dollarsToCents } from '../../src/domain/money.js';

describe('dollarsToCents', () => {
  it.each([
    [19.99, 1999],
    [0.01, 1],
    [0.1, 10],
    [5, 500],
    [999999.99, 99999999],
    [1.005, null],
    [0.001, null],
    [1e-7, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
  ])('%p dollars is %p cents', (dollars, cents) => {
    expect(dollarsToCents(dollars)).toBe(cents);
  });

  it('is exact for every two-decimal amount, where multiplying by 100 is not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (cents) => {
        const dollars = Number(centsToDecimalString(cents));
        expect(dollarsToCents(dollars)).toBe(cents);
      }),
    );
  });
});

describe('applyRate (round half up)', () => {
  it.each([
    [4498, 290, 130], // 130.442
    [50, 100, 1], // 0.5 rounds up
    [49, 100, 0], // 0.49 rounds down
    [1000, 10000, 1000],
    [1234, 0, 0],
  ])('%p cents at %p bps is %p', (amount, bps, expected) => {
    expect(applyRate(amount, bps)).toBe(expected);
  });

  it('never differs from the exact product by more than half a cent', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), fc.integer({ min: 0, max: 10_000 }), (amount, bps) => {
        const exact = (BigInt(amount) * BigInt(bps) * 2n) / 10_000n; // twice the exact value, floored
        const rounded = BigInt(applyRate(amount, bps));
        expect(rounded * 2n - exact <= 1n && exact - rounded * 2n <= 1n).toBe(true);
      }),
    );
  });
});
