import fc from 'fast-check';
import { sessionTotals } from '../../src/modules/checkout/index.js';

describe('session totals', () => {
  it('adds the percentage fee (rounded half up) and the fixed fee to the subtotal', () => {
    const totals = sessionTotals(
      [
        { price: 1999, quantity: 2 },
        { price: 500, quantity: 1 },
      ],
      { feeBps: 290, feeFixedCents: 30 },
    );
    expect(totals).toEqual({ itemSubtotals: [3998, 500], subtotal: 4498, fee: 160, total: 4658 });
  });

  it('total is always subtotal + fee, and subtotal the sum of price × quantity', () => {
    const item = fc.record({ price: fc.integer({ min: 1, max: 99_999_999 }), quantity: fc.integer({ min: 1, max: 1000 }) });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 100 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (items, feeBps, feeFixedCents) => {
        const t = sessionTotals(items, { feeBps, feeFixedCents });
        expect(t.subtotal).toBe(items.reduce((s, i) => s + i.price * i.quantity, 0));
        expect(t.total).toBe(t.subtotal + t.fee);
        expect(t.fee).toBeGreaterThanOrEqual(feeFixedCents);
      }),
    );
  });
});
