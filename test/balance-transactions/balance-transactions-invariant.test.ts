/**
 * The balance-transaction invariant, as a property over random operation sequences through
 * the real API and workflows: once a sequence has settled, summing `netInCents` per `balanceType` over
 * all of the business's balance transactions gives exactly `GET /api/balance`. Bounded: few runs, short
 * sequences, no shrinking (each step is a real payment, refund or withdrawal).
 */
import fc from 'fast-check';
import { balanceTransactions } from '../support/disputes.js';
import { FAILING_WALLET, settled, withdrawShare } from '../support/money-moves.js';
import { CARDS, createSession, payBody, payToEnd } from '../support/payments.js';
import { addWalletMethod, balanceOf, testMode } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

// Withdrawals are paid (or fail) two seconds after they are made, so a cancel right away finds them pending.
const stack = useStack({ WITHDRAWAL_PROCESSING_DELAY: '2s' });

type Op =
  | { op: 'pay'; card: 'success' | 'refundDeclined' }
  | { op: 'refund'; pick: number }
  | { op: 'withdraw'; share: number; outcome: 'paid' | 'failed' | 'cancel' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('pay' as const), card: fc.constantFrom('success' as const, 'refundDeclined' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('refund' as const), pick: fc.nat(10) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('withdraw' as const),
      share: fc.integer({ min: 1, max: 100 }),
      outcome: fc.constantFrom('paid' as const, 'failed' as const, 'cancel' as const),
    }),
  },
);

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  reserveBps: fc.constantFrom(0, 1000, 10_000),
  // A short hold lets reserves be released (and restored by failed refunds) within the run.
  reserveHoldMs: fc.constantFrom(1500, 90 * 86_400_000),
  // Payments first, so that most sequences have money to refund and withdraw.
  ops: fc
    .tuple(fc.array(fc.record({ op: fc.constant('pay' as const), card: fc.constantFrom('success' as const, 'refundDeclined' as const) }), { minLength: 1, maxLength: 3 }), fc.array(opArb, { minLength: 1, maxLength: 5 }))
    .map(([pays, rest]): Op[] => [...pays, ...rest]),
});
type Scenario = { reserveBps: number; reserveHoldMs: number; ops: Op[] };

/** Run first, whatever the seed: every kind of move, so every item type is exercised in every run of the suite. */
const EVERY_MOVE: Scenario = {
  reserveBps: 1000,
  reserveHoldMs: 1500,
  ops: [
    { op: 'pay', card: 'success' },
    { op: 'pay', card: 'refundDeclined' },
    { op: 'pay', card: 'success' },
    { op: 'refund', pick: 1 },
    { op: 'refund', pick: 0 },
    { op: 'withdraw', share: 30, outcome: 'paid' },
    { op: 'withdraw', share: 30, outcome: 'failed' },
    { op: 'withdraw', share: 30, outcome: 'cancel' },
  ],
};

async function apply(biz: TestBusiness, paid: string[], step: Op): Promise<void> {
  const key = biz.testKey;
  if (step.op === 'pay') {
    const session = await createSession(stack, key);
    // Its end, not the pay call's answer: a loaded machine may answer processing for a payment that completes.
    if ((await payToEnd(stack, session.id, payBody(CARDS[step.card]))).status === 'completed') paid.push(session.id);
  } else if (step.op === 'refund') {
    if (paid.length === 0) return;
    const res = await stack.http.post('/api/refunds', { checkoutSessionId: paid[step.pick % paid.length] }, { key });
    // Refused when the balance cannot cover it or the session is already refunded: both are fine here.
    expect([201, 400]).toContain(res.status);
  } else {
    const { available } = await balanceOf(stack.orm, testMode(biz.id));
    await withdrawShare(stack, key, available, step.share, step.outcome);
  }
}

/** The balance and the items read with no money move in between (the balance's `updatedAt` unchanged). */
async function snapshot(biz: TestBusiness) {
  for (;;) {
    const before = (await stack.http.get('/api/balance', { key: biz.testKey })).body.data;
    const items = await balanceTransactions(stack, biz.testKey);
    const after = (await stack.http.get('/api/balance', { key: biz.testKey })).body.data;
    if (before.updatedAt === after.updatedAt) return { balance: after, items };
  }
}

const sums = (items: any[]) => {
  const by = { available: 0, reserved: 0, pending_withdrawal: 0 } as Record<string, number>;
  for (const item of items) by[item.balanceType] += item.netInCents;
  return { availableInCents: by.available, reservedInCents: by.reserved, pendingInCents: by.pending_withdrawal };
};

describe('the balance-transaction invariant', () => {
  it('sums netInCents per balanceType to GET /api/balance after random payments, refunds and withdrawals', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ reserveBps, reserveHoldMs, ops }) => {
        const biz = await stack.business({ reserveBps, reserveHoldMs });
        await addWalletMethod(stack.orm, biz.id);
        await addWalletMethod(stack.orm, biz.id, FAILING_WALLET);
        const paid: string[] = [];
        for (const step of ops) await apply(biz, paid, step);
        await settled(stack, biz);
        const { balance, items } = await snapshot(biz);
        for (const item of items) seen.add(item.type);
        for (const item of items) expect(item.netInCents).toBe(item.amountInCents - item.feeInCents);
        expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
        expect(sums(items)).toEqual({
          availableInCents: balance.availableInCents,
          reservedInCents: balance.reservedInCents,
          pendingInCents: balance.pendingInCents,
        });
      }),
      { numRuns: 8, examples: [[EVERY_MOVE]], endOnFailure: true, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) },
    );
    // The fixed example alone makes every type but `fee` (which no move makes: fees show on payments).
    expect([...seen].sort()).toEqual(
      ['payment', 'refund', 'refund_failure', 'reserve_hold', 'reserve_release', 'withdrawal', 'withdrawal_cancel', 'withdrawal_failure'],
    );
  }, 300_000);

  it('holds mid-flight too: a withdrawal still pending counts in pending_withdrawal, as GET /api/balance counts it', async () => {
    const biz = await stack.business({ reserveBps: 1000 });
    await addWalletMethod(stack.orm, biz.id);
    const paid: string[] = [];
    for (let i = 0; i < 2; i++) await apply(biz, paid, { op: 'pay', card: 'success' });
    await apply(biz, paid, { op: 'withdraw', share: 50, outcome: 'paid' });
    const { balance, items } = await snapshot(biz);
    expect(balance.pendingInCents).toBeGreaterThan(0);
    expect(sums(items)).toEqual({ availableInCents: balance.availableInCents, reservedInCents: balance.reservedInCents, pendingInCents: balance.pendingInCents });
    await settled(stack, biz);
    const settledView = await snapshot(biz);
    expect(settledView.balance.pendingInCents).toBe(0);
    expect(settledView.items.filter((i: any) => i.type === 'withdrawal').map((i: any) => i.balanceType).sort()).toEqual([
      'available',
      'pending_withdrawal',
      'pending_withdrawal',
    ]);
    expect(sums(settledView.items)).toEqual({
      availableInCents: settledView.balance.availableInCents,
      reservedInCents: settledView.balance.reservedInCents,
      pendingInCents: 0,
    });
  }, 120_000);
});
