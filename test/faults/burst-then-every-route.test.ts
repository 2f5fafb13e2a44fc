/**
 * A burst of ordinary concurrent requests must leave an API process as healthy as it found it.
 *
 * The bug this holds down: 50 concurrent withdrawals (some refused for balance) and their concurrent
 * cancels, then any webhook update or delete, answered 500 "Transaction is already committed / rolled
 * back" for the rest of the process's life. A service passed a shared options object to MikroORM's
 * `transactional`, which wrote the first joined transaction into it (docs/decisions.md, "Transactions").
 * So this runs the real API process, not an in-process app, and after the burst calls every write route
 * twice, each answer checked exactly: a poisoned process answers the second round as badly as the first.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { HttpClient } from '../support/http.js';
import { payBody, sessionBody } from '../support/payments.js';
import { addWalletMethod, creditAvailable, testMode } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { moneyProblems } from './support/money.js';
import { until } from './support/flows.js';
import type { ApiProcess } from '../support/stack-processes.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { processes: 'burst' });
let api: ApiProcess;
let http: HttpClient;
let biz: TestBusiness;

beforeAll(async () => {
  await stack.processes.worker();
  api = await stack.processes.api();
  http = stack.client(api.origin);
  biz = await stack.business();
  await addWalletMethod(stack.orm, biz.id);
  await creditAvailable(stack.orm, testMode(biz.id), 54_000);
}, 120_000);

const WALLET = { destinationType: 'wallet', destinationDetails: { walletEmail: 'payouts@merchant.example' } };
const withKey = (key = randomUUID()) => ({ key: biz.testKey, headers: { 'Idempotency-Key': key } });

/** The answer's status, and the body when it is not the one expected (so a failure shows the error). */
const outcome = (res: { status: number; body: any }, expected: number) =>
  res.status === expected ? res.status : { status: res.status, body: res.body };

describe('an API process after a burst of concurrent withdrawals and cancels', () => {
  it('answers the burst itself with 201 or the spec refusal, never 5xx', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => http.post('/api/withdrawals', { amount: 25, ...WALLET }, withKey())));
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 400);
    expect(created.length + refused.length).toBe(50);
    expect(created).toHaveLength(21); // $540 of available, $25 each
    for (const r of refused) expect(r.body.error).toMatchObject({ type: 'validation_error', message: 'Insufficient available balance' });

    const cancels = await Promise.all(created.map((c) => http.post(`/api/withdrawals/${c.body.data.id}/cancel`, undefined, withKey())));
    for (const c of cancels) expect(c.status).toBe(200);
    expect(cancels.map((c) => c.body.data.status)).toEqual(created.map(() => 'cancelled'));
  }, 60_000);

  it.each([1, 2])('answers every write route correctly afterwards (round %i)', async () => {
    const session = await http.post('/api/checkout/sessions', sessionBody(), withKey());
    expect(outcome(session, 201)).toBe(201);
    const paid = await http.post(`/api/checkout/${session.body.data.id}/pay`, payBody());
    expect(outcome(paid, 200)).toBe(200);
    // Either answer is right: a payment that outlasts the call's 10 s wait is answered processing.
    expect(['completed', 'processing']).toContain(paid.body.data.status);
    await until('the payment to complete', async () => (await http.get(`/api/checkout/sessions/${session.body.data.id}`, { key: biz.testKey })).body.data.status === 'completed');
    const refund = await http.post('/api/refunds', { checkoutSessionId: session.body.data.id }, withKey());
    expect(outcome(refund, 201)).toBe(201);

    const withdrawal = await http.post('/api/v1/withdrawals', { amount: 1, ...WALLET }, withKey());
    expect(outcome(withdrawal, 201)).toBe(201);
    const cancelled = await http.post(`/api/withdrawals/${withdrawal.body.data.id}/cancel`, undefined, withKey());
    expect(outcome(cancelled, 200)).toBe(200);

    const created = await http.post('/api/webhooks', { url: 'https://receiver.example/hooks', events: ['*'] }, withKey());
    expect(outcome(created, 201)).toBe(201);
    const id = created.body.data.endpoint.id;
    const put = await http.put(`/api/webhooks/${id}`, { description: 'put' }, { key: biz.testKey });
    expect(outcome(put, 200)).toBe(200);
    expect(put.body.data.description).toBe('put');
    const patch = await http.patch(`/api/webhooks/${id}`, { isActive: false }, { key: biz.testKey });
    expect(outcome(patch, 200)).toBe(200);
    expect(patch.body.data.isActive).toBe(false);
    const rotated = await http.post(`/api/webhooks/${id}/rotate-secret`, undefined, withKey());
    expect(outcome(rotated, 200)).toBe(200);

    const events = await http.get('/api/webhooks/events', { key: biz.testKey });
    expect(outcome(events, 200)).toBe(200);
    const retried = await http.post(`/api/webhooks/retry/${events.body.data.items[0].id}`, undefined, withKey());
    expect(outcome(retried, 200)).toBe(200);

    const deleted = await http.delete(`/api/webhooks/${id}`, { key: biz.testKey });
    expect(outcome(deleted, 200)).toBe(200);
    expect(deleted.body.data).toEqual({ id, deleted: true });

    const pending = await http.post('/api/checkout/sessions', sessionBody(), withKey());
    const pageCancel = await http.request('POST', `/checkout/${pending.body.data.id}/cancel`, { offDocument: true });
    expect(pageCancel.status).toBe(303);
  }, 60_000);

  it('leaves the ledger sound', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});
