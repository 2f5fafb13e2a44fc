import { randomUUID } from 'node:crypto';
import { paidSession } from '../support/payments.js';
import { addWalletMethod, balanceOf, creditAvailable, testMode, WALLET_EMAIL } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

/** Idempotency-Key on the money-moving POSTs beyond sessions: one key, one effect, one answer. */
const stack = useStack();

async function fundedBusiness(cents: number): Promise<TestBusiness> {
  const biz = await stack.business();
  await addWalletMethod(stack.orm, biz.id);
  await creditAvailable(stack.orm, testMode(biz.id), cents);
  return biz;
}

// The wallet `addWalletMethod` registered: a withdrawal goes only to a registered destination.
const wallet = (amount: number) => ({ amount, destinationType: 'wallet', destinationDetails: { walletEmail: WALLET_EMAIL } });
const withKey = (biz: TestBusiness, key: string) => ({ key: biz.testKey, headers: { 'Idempotency-Key': key } });
const withdrawalCount = async (businessId: string) =>
  Number((await stack.orm.em.fork().execute('select count(*) as n from withdrawals where business_id = ?', [businessId]))[0].n);

describe('POST /api/withdrawals with an Idempotency-Key', () => {
  it('50 concurrent requests with one key create exactly one withdrawal and move the money once', async () => {
    const biz = await fundedBusiness(100_000);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => stack.http.post('/api/withdrawals', wallet(10), withKey(biz, key))));
    expect(await withdrawalCount(biz.id)).toBe(1);
    expect((await balanceOf(stack.orm, testMode(biz.id))).available).toBe(100_000 - 1000);
    const created = answers.filter((a) => a.status === 201);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
  });

  it('does not store a refusal: the key works once the balance allows it', async () => {
    const biz = await fundedBusiness(500);
    const key = randomUUID();
    const refused = await stack.http.post('/api/withdrawals', wallet(10), withKey(biz, key));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('Insufficient available balance');
    await creditAvailable(stack.orm, testMode(biz.id), 1000);
    const accepted = await stack.http.post('/api/withdrawals', wallet(10), withKey(biz, key));
    expect(accepted.status).toBe(201);
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('POST /api/withdrawals/:id/cancel with an Idempotency-Key', () => {
  it('replays the cancellation instead of refusing the second one', async () => {
    const biz = await fundedBusiness(10_000);
    const created = await stack.http.post('/api/withdrawals', wallet(10), { key: biz.testKey });
    const key = randomUUID();
    const first = await stack.http.post(`/api/withdrawals/${created.body.data.id}/cancel`, undefined, withKey(biz, key));
    expect(first.status).toBe(200);
    expect(first.body.data.status).toBe('cancelled');
    const again = await stack.http.post(`/api/v1/withdrawals/${created.body.data.id}/cancel`, undefined, withKey(biz, key));
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    // Without the key, a second cancel is the spec's validation error.
    const plain = await stack.http.post(`/api/withdrawals/${created.body.data.id}/cancel`, undefined, { key: biz.testKey });
    expect(plain.body.error.message).toBe('Cannot cancel withdrawal in cancelled status');
  });
});

describe('POST /api/refunds with an Idempotency-Key', () => {
  it('50 concurrent requests with one key create exactly one refund', async () => {
    const biz = await stack.business();
    const session = await paidSession(stack, biz);
    // The business keeps the fee, so refunding the total needs more than the payment left available.
    await creditAvailable(stack.orm, testMode(biz.id), 1_000);
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => stack.http.post('/api/refunds', { checkoutSessionId: session.id, reason: 'requested' }, withKey(biz, key))),
    );
    const rows = await stack.orm.em.fork().execute('select id from refunds where checkout_session_id = ?', [session.id]);
    expect(rows).toHaveLength(1);
    const created = answers.filter((a) => a.status === 201);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    expect(created[0].body.data.id).toBe(rows[0].id);
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
  });
});
