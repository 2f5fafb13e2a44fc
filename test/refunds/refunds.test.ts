import { verifyLedger } from '../../src/modules/ledger/index.js';
import { refundStatusQuery } from '../../contracts/refunds.js';
import { AmountInCents, BusinessId, PaymentStatus } from '../../contracts/search-attributes.js';
import { CARDS, createSession, eventually, pay, payToCompletion, payBody, paidSession, sql } from '../support/payments.js';
import { balanceOf, creditAvailable, testMode } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack();

// The demo cart: subtotal 4498 + fee 160 = total 4658, the amount every refund here returns.
const TOTAL = 4658;

const refund = (biz: TestBusiness, body: unknown, key = biz.testKey) => stack.http.post('/api/refunds', body, { key });
const readRefund = (biz: TestBusiness, id: string) => stack.http.get(`/api/refunds/${id}`, { key: biz.testKey });

/** Waits for the refund's workflow to finish, and returns the refund as the API reads it. */
async function settled(biz: TestBusiness, id: string) {
  return eventually(async () => {
    const res = await readRefund(biz, id);
    return ['completed', 'failed'].includes(res.body.data.status) ? res.body.data : undefined;
  });
}

const refundEvents = (refundId: string) =>
  sql<{ type: string; payload: Record<string, unknown> }>(stack, `select type, payload from events where payload->>'refundId' = ? order by created_at`, [refundId]);

/** A reserve's amounts, status and dates, as the database holds them. */
const reserveRow = async (paymentId: string) =>
  (await sql(stack, `select id, status, reserve_amount_in_cents::int as reserve, consumed_amount_in_cents::int as consumed,
                            released_amount_in_cents::int as released, release_at, released_at from reserves where payment_id = ?`, [paymentId]))[0];
/** What a refund took from each reserve, as recorded when it was made. */
const reserveShares = (refundId: string) =>
  sql(stack, 'select reserve_id, amount_in_cents::int as amount from refund_reserve_parts where refund_id = ? order by reserve_id', [refundId]);
/** One ledger transaction's entries, by account. */
async function postingOf(kind: string, referenceId: string): Promise<Record<string, number>> {
  const rows = await sql<{ account: string; amount: string }>(
    stack,
    'select e.account, e.amount from ledger_entries e join ledger_transactions t on t.id = e.transaction_id where t.kind = ? and t.reference_id = ?',
    [kind, referenceId],
  );
  return Object.fromEntries(rows.map((r) => [r.account, Number(r.amount)]));
}

async function expectLedgerVerified() {
  const result = await verifyLedger(stack.orm.em.fork());
  expect(result.problems).toEqual([]);
}

describe('POST /api/refunds', () => {
  it('refuses an amount: a refund is of the whole session, whose total is told only to the business that owns it', async () => {
    const biz = await stack.business();
    const other = await stack.business();
    const session = await createSession(stack, biz.testKey);
    const advice = 'A refund is always of the whole session, its total (one refund per session): leave the amount out';
    const own = await refund(biz, { checkoutSessionId: session.id, amount: 10 });
    expect([own.status, own.body.error]).toEqual([
      400,
      {
        type: 'validation_error',
        message: 'Validation failed',
        requestId: expect.any(String),
        errors: [{ path: ['amount'], message: `Unknown field: amount. ${advice}. This session's total is 46.58 USD (4658 cents)` }],
      },
    ]);
    const theirs = await refund(other, { checkoutSessionId: session.id, amountInCents: 1_000 });
    expect([theirs.status, theirs.body.error.errors]).toEqual([400, [{ path: ['amountInCents'], message: `Unknown field: amountInCents. ${advice}` }]]);
    const unknown = await refund(biz, { checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', amount: 10, note: 'x' });
    expect(unknown.body.error.errors).toEqual([
      { path: ['amount'], message: `Unknown field: amount. ${advice}` },
      { path: ['note'], message: 'Unknown field: note' },
    ]);
    expect(await sql(stack, 'select count(*)::int as n from refunds where checkout_session_id = ?', [session.id])).toEqual([{ n: 0 }]);
  });

  it('refunds a completed session in full: pending, then completed, session refunded, refund.created and refund.completed', async () => {
    const biz = await stack.business();
    const session = await paidSession(stack, biz);
    await creditAvailable(stack.orm, testMode(biz.id), 1_000);
    const res = await refund(biz, { checkoutSessionId: session.id, reason: 'customer request' });
    expect(res.status).toBe(201);
    const r = res.body.data;
    expect(r).toMatchObject({ checkoutSessionId: session.id, amountInCents: TOTAL, reason: 'customer request', status: 'pending' });
    expect(r.id).toMatch(/^ref_[0-9a-f]{32}$/);
    expect(r.requestedAt).toBe(r.createdAt);
    expect(r).not.toHaveProperty('completedAt');
    // 4048 from the payment + 1000 credited; all of the 4658 comes from available, the reserve is untouched.
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 4_048 + 1_000 - TOTAL, reserved: 450 });

    const done = await settled(biz, r.id);
    expect(done.status).toBe('completed');
    expect(new Date(done.completedAt).getTime()).toBeGreaterThanOrEqual(new Date(r.createdAt).getTime());
    expect(done).not.toHaveProperty('failureReason');
    const sessionRead = await stack.http.get(`/api/checkout/sessions/${session.id}`, { key: biz.testKey });
    expect(sessionRead.body.data.status).toBe('refunded');
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 390, reserved: 450, refundsInFlight: 0 });

    const events = await refundEvents(r.id);
    expect(events.map((e) => e.type)).toEqual(['refund.created', 'refund.completed']);
    expect(events[0].payload).toEqual({
      refundId: r.id,
      sessionId: session.id,
      amount: TOTAL,
      reason: 'customer request',
      status: 'pending',
      timestamp: r.createdAt,
    });
    expect(events[1].payload).toMatchObject({ refundId: r.id, status: 'completed', processorRefundId: expect.stringMatching(/^re_sim_/), timestamp: done.completedAt });
    await expectLedgerVerified();

    // What an operator finds in the Temporal UI.
    const handle = stack.temporal.workflow.getHandle(`refund-${r.id}`);
    expect(await handle.result()).toBe('completed');
    const described = await handle.describe();
    expect(await described.staticSummary()).toBe(`Refund ${r.id} of $46.58 for session ${session.id}`);
    expect(described.typedSearchAttributes.get(PaymentStatus)).toBe('completed');
    expect(described.typedSearchAttributes.get(BusinessId)).toBe(biz.id);
    expect(described.typedSearchAttributes.get(AmountInCents)).toBe(TOTAL);
    expect(await handle.query(refundStatusQuery)).toEqual(done);
  });

  it('fails a refund the card issuer declines (card 4000000000005126): funds back where they came from, refund.failed, and the merchant may try again', async () => {
    // Half of each subtotal held: available 2 × 2249 = 4498, two reserves of 2249. The refund of 4658
    // takes all 4498 available and 160 from the oldest reserve (`keep`'s).
    const biz = await stack.business({ reserveBps: 5_000 });
    const keep = await paidSession(stack, biz);
    const session = await createSession(stack, biz.testKey);
    await payToCompletion(stack, session.id, payBody(CARDS.refundDeclined));
    const before = await balanceOf(stack.orm, testMode(biz.id));
    expect(before).toMatchObject({ available: 4_498, reserved: 4_498 });
    const reserveBefore = await reserveRow(keep.id);

    const first = await refund(biz, { checkoutSessionId: session.id });
    expect(first.status).toBe(201);
    expect(await reserveShares(first.body.data.id)).toEqual([{ reserve_id: reserveBefore.id, amount: 160 }]);
    const failed = await settled(biz, first.body.data.id);
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toBe('Refund declined by the card issuer');
    expect(failed).not.toHaveProperty('completedAt');
    expect(await balanceOf(stack.orm, testMode(biz.id))).toEqual(before);
    expect(await reserveRow(keep.id)).toEqual(reserveBefore);
    const events = await refundEvents(first.body.data.id);
    expect(events.map((e) => e.type)).toEqual(['refund.created', 'refund.failed']);
    expect(events[1].payload).toEqual({
      refundId: first.body.data.id,
      sessionId: session.id,
      amount: TOTAL,
      reason: null,
      status: 'failed',
      failureReason: 'Refund declined by the card issuer',
      timestamp: expect.any(String),
    });
    expect((await stack.http.get(`/api/checkout/sessions/${session.id}`, { key: biz.testKey })).body.data.status).toBe('completed');

    // The second refund is funded the same way, from the same reserve, and fails the same way.
    const again = await refund(biz, { checkoutSessionId: session.id });
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ checkoutSessionId: session.id, amountInCents: TOTAL, status: 'pending' });
    expect(again.body.data.id).not.toBe(first.body.data.id);
    expect(await reserveShares(again.body.data.id)).toEqual([{ reserve_id: reserveBefore.id, amount: 160 }]);
    const secondResult = await settled(biz, again.body.data.id);
    expect(secondResult).toMatchObject({ id: again.body.data.id, status: 'failed', failureReason: 'Refund declined by the card issuer' });
    expect(await balanceOf(stack.orm, testMode(biz.id))).toEqual(before);
    expect(await reserveRow(keep.id)).toEqual(reserveBefore);
    await expectLedgerVerified();
  });

  it('refuses a session that is not completed: "Can only refund completed sessions"', async () => {
    const biz = await stack.business();
    const session = await createSession(stack, biz.testKey);
    const res = await refund(biz, { checkoutSessionId: session.id });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Can only refund completed sessions' });
  });

  it('refuses a second refund while one is pending or after it completed: "Refund already exists for this session"', async () => {
    const biz = await stack.business();
    const session = await paidSession(stack, biz);
    await creditAvailable(stack.orm, testMode(biz.id), 10_000);
    const first = await refund(biz, { checkoutSessionId: session.id });
    const whilePending = await refund(biz, { checkoutSessionId: session.id });
    expect(whilePending.status).toBe(400);
    expect(whilePending.body.error).toMatchObject({ type: 'validation_error', message: 'Refund already exists for this session' });
    await settled(biz, first.body.data.id);
    const afterCompleted = await refund(biz, { checkoutSessionId: session.id });
    expect(afterCompleted.body.error.message).toBe('Refund already exists for this session');
  });

  it('gives exactly one refund to concurrent requests for one session', async () => {
    const biz = await stack.business();
    const session = await paidSession(stack, biz);
    await creditAvailable(stack.orm, testMode(biz.id), 50_000);
    const results = await Promise.all(Array.from({ length: 5 }, () => refund(biz, { checkoutSessionId: session.id })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.error.message).toBe('Refund already exists for this session');
  });

  it('answers 404 "Checkout session not found" for an unknown session, another business\'s, or the other mode\'s', async () => {
    const biz = await stack.business();
    const other = await stack.business();
    const session = await paidSession(stack, biz);
    for (const res of [
      await refund(biz, { checkoutSessionId: '00000000-0000-7000-8000-000000000000' }),
      await refund(biz, { checkoutSessionId: 'not-a-uuid' }),
      await refund(other, { checkoutSessionId: session.id }),
      await refund(biz, { checkoutSessionId: session.id }, biz.liveKey),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found', message: 'Checkout session not found' });
    }
  });

  it('rejects a body without checkoutSessionId with the field\'s path', async () => {
    const biz = await stack.business();
    const res = await refund(biz, { reason: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Validation failed' });
    expect(res.body.error.errors[0].path).toEqual(['checkoutSessionId']);
  });
});

describe('refunds funded from reserves', () => {
  it('takes available first, then the oldest reserves: partially_released, then consumed; refuses when both fall short', async () => {
    // Half of each subtotal held: every payment gives 2249 to available and 2249 to a reserve.
    const biz = await stack.business({ reserveBps: 5_000 });
    const owner = testMode(biz.id);
    const reserveOf = async (sessionId: string) =>
      (await sql<{ status: string; consumed: number }>(stack, 'select status, consumed_amount_in_cents::int as consumed from reserves where payment_id = ?', [sessionId]))[0];
    const refundAndSettle = async (sessionId: string) => {
      const res = await refund(biz, { checkoutSessionId: sessionId });
      expect(res.status).toBe(201);
      expect((await settled(biz, res.body.data.id)).status).toBe('completed');
    };

    const [s1, s2, s3] = [await paidSession(stack, biz), await paidSession(stack, biz), await paidSession(stack, biz)];
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 3 * 2_249, reserved: 3 * 2_249 });

    await refundAndSettle(s3.id); // 4658 of 6747 available
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 2_089, reserved: 6_747, refundsInFlight: 0 });
    expect((await reserveOf(s1.id)).status).toBe('active');

    await refundAndSettle(s2.id); // 2089 from available, 2569 from reserves: all of s1's (2249), 320 of s2's
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 0, reserved: 6_747 - 2_569 });
    expect(await reserveOf(s1.id)).toEqual({ status: 'consumed', consumed: 2_249 });
    expect(await reserveOf(s2.id)).toEqual({ status: 'partially_released', consumed: 320 });

    // s1: 0 available and 1929 + 2249 = 4178 held, short of 4658.
    const short = await refund(biz, { checkoutSessionId: s1.id });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatchObject({ type: 'validation_error', message: 'Insufficient balance for refund' });
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 0, reserved: 4_178 });

    const s4 = await paidSession(stack, biz); // +2249 available, +2249 held
    await refundAndSettle(s1.id); // 2249 from available, 2409 from reserves: the rest of s2's (1929), 480 of s3's
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 0, reserved: 4_178 + 2_249 - 2_409 });
    expect(await reserveOf(s2.id)).toEqual({ status: 'consumed', consumed: 2_249 });
    expect(await reserveOf(s3.id)).toEqual({ status: 'partially_released', consumed: 480 });
    expect(await reserveOf(s4.id)).toEqual({ status: 'active', consumed: 0 });
    await expectLedgerVerified();
  });

  it('gives the reserve-funded part of a failed refund back to the reserve it came from; only the rest returns to available', async () => {
    const biz = await stack.business({ reserveBps: 5_000 });
    const owner = testMode(biz.id);
    const keep = await paidSession(stack, biz);
    const session = await createSession(stack, biz.testKey);
    await pay(stack, session.id, payBody(CARDS.refundDeclined));
    const reserveBefore = await reserveRow(keep.id);
    // available 4498, held 4498; the refund takes all 4498 available and 160 from the oldest reserve.
    const res = await refund(biz, { checkoutSessionId: session.id });
    expect((await settled(biz, res.body.data.id)).status).toBe('failed');
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 4_498, reserved: 4_498, refundsInFlight: 0 });
    expect(await reserveRow(keep.id)).toEqual({ ...reserveBefore, status: 'active', consumed: 0 });
    expect(await postingOf('refund.failed', res.body.data.id)).toEqual({ refunds_in_flight: -TOTAL, available: 4_498, reserved: 160 });
    await expectLedgerVerified();
  });
});

describe('GET /api/refunds', () => {
  it('lists refunds with a data array and pagination, filtered by transactionId and status', async () => {
    const biz = await stack.business();
    await creditAvailable(stack.orm, testMode(biz.id), 50_000);
    const sessions = [await paidSession(stack, biz), await paidSession(stack, biz), await paidSession(stack, biz)];
    const ids: string[] = [];
    for (const s of sessions) ids.push((await refund(biz, { checkoutSessionId: s.id })).body.data.id);
    for (const id of ids) await settled(biz, id);

    const page = await stack.http.get('/api/refunds?limit=2', { key: biz.testKey });
    expect(page.status).toBe(200);
    expect(page.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    const byTransaction = await stack.http.get(`/api/refunds?transactionId=${sessions[0].id}`, { key: biz.testKey });
    expect(byTransaction.body.data.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    const pending = await stack.http.get('/api/refunds?status=pending', { key: biz.testKey });
    expect(pending.body).toMatchObject({ data: [], pagination: { total: 0, totalPages: 0 } });
    const bad = await stack.http.get('/api/refunds?status=refunded', { key: biz.testKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.errors[0].path).toEqual(['status']);
  });

  it('answers 404 "Refund not found" for an unknown id', async () => {
    const biz = await stack.business();
    const res = await readRefund(biz, 'ref_unknown');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'not_found', message: 'Refund not found' });
  });
});
