import fc from 'fast-check';
import { applyPosting } from '../../src/modules/ledger/accounts.rules.js';
import { checkoutFailedPayload, checkoutSucceededPayload, paymentLines, paymentSplit } from '../../src/modules/checkout/payment.rules.js';
import { sessionTotals } from '../../src/modules/checkout/index.js';
import { isPastExpiry, MAX_SWEEP_SLEEP_MS, nextSweepAt } from '../../src/modules/checkout/expiry.rules.js';

const zero = { available: 0, reserved: 0, pending_withdrawal: 0, refunds_in_flight: 0 };

describe('payment money flow', () => {
  it('splits the demo cart: fee to revenue, 10 % of the subtotal held, the rest available', () => {
    const totals = sessionTotals([{ price: 1999, quantity: 2 }, { price: 500, quantity: 1 }], { feeBps: 290, feeFixedCents: 30 });
    const split = paymentSplit(totals, 1000);
    expect(split).toEqual({ total: 4658, fee: 160, reserve: 450, available: 4048 });
    expect(paymentLines(split)).toEqual([
      { account: 'processor_clearing', amount: -4658 },
      { account: 'fee_revenue', amount: 160 },
      { account: 'reserved', amount: 450 },
      { account: 'available', amount: 4048 },
    ]);
  });

  it('rounds the reserve half up', () => {
    expect(paymentSplit({ subtotal: 5, fee: 0, total: 5 }, 1000).reserve).toBe(1); // 0.5 → 1
    expect(paymentSplit({ subtotal: 4, fee: 0, total: 4 }, 1000).reserve).toBe(0); // 0.4 → 0
  });

  it('leaves out zero lines (no fee, no reserve)', () => {
    expect(paymentLines(paymentSplit({ subtotal: 100, fee: 0, total: 100 }, 0))).toEqual([
      { account: 'processor_clearing', amount: -100 },
      { account: 'available', amount: 100 },
    ]);
  });

  it('over random carts, fees and reserve rates: postings sum to zero and available + reserved + fee = total paid', () => {
    const item = fc.record({ price: fc.integer({ min: 1, max: 99_999_999 }), quantity: fc.integer({ min: 1, max: 1000 }) });
    fc.assert(
      fc.property(
        fc.array(item, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (items, feeBps, feeFixedCents, reserveBps) => {
          const totals = sessionTotals(items, { feeBps, feeFixedCents });
          const split = paymentSplit(totals, reserveBps);
          const postings = paymentLines(split);
          expect(postings.reduce((sum, line) => sum + line.amount, 0)).toBe(0);
          const after = applyPosting(zero, postings);
          const feeRevenue = postings.find((l) => l.account === 'fee_revenue')?.amount ?? 0;
          expect(after.available + after.reserved + feeRevenue).toBe(totals.total);
          expect(after.reserved).toBe(split.reserve);
          expect(after.available).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('checkout event payloads', () => {
  const at = new Date('2026-11-21T10:00:00.000Z');
  const session = { id: 'sess-1', total: 4658, currency: 'USD', customerEmail: 'buyer@example.com', customerName: 'Ada Lovelace' };

  it('gives checkout.succeeded exactly the spec fields, shipping with its five keys', () => {
    const shipping = { addressLine1: '1 Main St', addressLine2: 'Apt 2', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
    expect(checkoutSucceededPayload({ ...session, shipping }, at)).toEqual({
      sessionId: 'sess-1',
      amount: 4658,
      amountInDecimals: '46.58',
      currency: 'USD',
      customerEmail: 'buyer@example.com',
      customerName: 'Ada Lovelace',
      timestamp: '2026-11-21T10:00:00.000Z',
      shipping: { addressLine1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
    });
    expect(checkoutSucceededPayload({ ...session, shipping: null }, at).shipping).toBeNull();
  });

  it('gives checkout.failed the issue fields', () => {
    expect(checkoutFailedPayload(session, { code: 'card_declined', message: 'Your card was declined.' }, at)).toEqual({
      sessionId: 'sess-1',
      amount: 4658,
      currency: 'USD',
      customerEmail: 'buyer@example.com',
      failureCode: 'card_declined',
      failureMessage: 'Your card was declined.',
      timestamp: '2026-11-21T10:00:00.000Z',
    });
  });
});

describe('the expiry sweep: when it runs next', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const at = (ms: number) => new Date(now.getTime() + ms);

  it('at the next pending expiry', () => {
    expect(nextSweepAt(now, at(5_000), 24 * 3600_000)).toEqual(at(5_000));
  });

  it('with nothing pending, no later than a session created now could expire', () => {
    expect(nextSweepAt(now, null, 2 * 60_000)).toEqual(at(2 * 60_000));
  });

  it('never more than MAX_SWEEP_SLEEP_MS away, whatever the TTL', () => {
    expect(nextSweepAt(now, null, 24 * 3600_000)).toEqual(at(MAX_SWEEP_SLEEP_MS));
    expect(nextSweepAt(now, at(20 * 3600_000), 24 * 3600_000)).toEqual(at(MAX_SWEEP_SLEEP_MS));
  });

  it('a pending session is past its expiry from its expiresAt on; another status never is', () => {
    expect(isPastExpiry({ status: 'pending', expiresAt: now }, now)).toBe(true);
    expect(isPastExpiry({ status: 'pending', expiresAt: at(1) }, now)).toBe(false);
    expect(isPastExpiry({ status: 'completed', expiresAt: at(-1) }, now)).toBe(false);
  });
});
