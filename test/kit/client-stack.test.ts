import { createPaymentsClient, PaymentsApiError, type PaymentsClient } from '@payments/client';
import { eventually, payBody, payToCompletion, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { failOnHiddenAnswers } from './support/hidden-answers.js';
import { trustTestCa } from './support/trust-test-ca.js';

/** @payments/client against the real service: real PostgreSQL, Temporal and worker, over TLS. */
const stack = useStack({ DISPUTE_NOTICE_DELAY: '200ms' });
const biz = useBusiness(stack, { name: 'Kit Coffee' });
let client: PaymentsClient;

// Every client of the file takes this fetch: a 5xx, 429 or 409 it was answered (retried or not) fails the test.
const answers = failOnHiddenAnswers();
trustTestCa();
beforeAll(async () => {
  // No retries: what the service answered is what the test sees.
  client = createPaymentsClient({ apiKey: biz.testKey, baseUrl: `${stack.origin}/api/v1`, retry: { maxRetries: 0 }, fetch: answers.fetch });
});

const cart = (n: number) => ({
  description: `Order #${n}`,
  customer: { email: 'ada@example.com' },
  items: [{ name: 'House blend', price: 10 + n, quantity: 1 }],
});

describe('@payments/client against the real service', () => {
  it('creates, reads and walks checkout sessions by cursor, filtered by status', async () => {
    const created = [];
    for (let n = 1; n <= 3; n++) created.push(await client.checkoutSessions.create(cart(n)));
    expect(created[0]).toMatchObject({ status: 'pending', total: expect.any(Number), checkoutUrl: expect.stringContaining('/checkout/') });
    await expect(client.checkoutSessions.retrieve(created[1].id)).resolves.toMatchObject({ id: created[1].id, description: 'Order #2' });
    for (const session of created.slice(0, 2)) await payToCompletion(stack, session.id);

    const completed: string[] = [];
    for await (const session of client.checkoutSessions.list({ status: 'completed', limit: 1 })) completed.push(session.id);
    expect(completed).toEqual([created[1].id, created[0].id]); // newest first, one page each
    const pending = await client.checkoutSessions.list({ status: 'pending', limit: 1 }).toArray();
    expect(pending.map((s) => s.id)).toEqual([created[2].id]);
  });

  it('refunds with a generated Idempotency-Key and walks refunds by page', async () => {
    const paid = [];
    for (let n = 4; n <= 5; n++) {
      const session = await client.checkoutSessions.create(cart(n));
      await payToCompletion(stack, session.id);
      paid.push(session);
    }
    const refunds = [];
    for (const session of paid) refunds.push(await client.refunds.create({ checkoutSessionId: session.id, reason: 'requested_by_customer' }));
    expect(refunds[0]).toMatchObject({ checkoutSessionId: paid[0].id });
    const listed = await client.refunds.list({ limit: 1 }).toArray();
    expect(listed.map((r) => r.id).sort()).toEqual(refunds.map((r) => r.id).sort());
  });

  it('walks balance transactions by cursor', async () => {
    const all = await client.balanceTransactions.list({ limit: 2 }).toArray();
    expect(all.length).toBeGreaterThanOrEqual(5); // 4 payments + refunds, two a page
    expect(new Set(all.map((t) => t.id)).size).toBe(all.length);
  });

  it('finds a dispute card\'s dispute, saves and submits evidence, and closes another', async () => {
    const disputed = [];
    for (let n = 6; n <= 7; n++) {
      const session = await client.checkoutSessions.create(cart(n));
      await payToCompletion(stack, session.id, payBody('4000000000000259'));
      disputed.push(session.id);
      // Its dispute opened before the next payment's: the order below is the order they were opened in. Read
      // from the database: polled through the API, the merchant's key would spend its rate limit.
      await eventually(`the dispute of ${session.id}`, async () => (await sql(stack, 'select id from disputes where checkout_session_id = ?', [session.id])).length === 1);
    }
    const found = await eventually('both disputes', async () => {
      const all = await client.disputes.list({ limit: 1 }).toArray();
      return all.length === 2 && all;
    });
    expect(found.map((d) => d.checkoutSessionId)).toEqual([...disputed].reverse()); // newest first, a page each
    const [dispute] = await client.disputes.list({ checkoutSessionId: disputed[0] }).toArray();
    await expect(client.disputes.retrieve(dispute.id)).resolves.toMatchObject({ status: 'needs_response', reason: 'fraudulent' });
    const draft = await client.disputes.submitEvidence(dispute.id, { customerName: 'Ada Lovelace' });
    expect(draft).toMatchObject({ status: 'needs_response', evidence: { customerName: 'Ada Lovelace' } });
    expect((await client.disputes.submitEvidence(dispute.id, { submit: true })).status).toBe('under_review');
    const other = found.find((d) => d.id !== dispute.id)!;
    expect((await client.disputes.close(other.id)).status).toBe('lost');
    await expect(client.disputes.close(other.id)).rejects.toMatchObject({ status: 400, type: 'validation_error', message: 'Cannot close a dispute in lost status' });
  });

  it('throws the API’s errors typed: type, message, requestId and field errors', async () => {
    const missing = await client.refunds.retrieve('ref_00000000000000000000000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PaymentsApiError);
    expect(missing).toMatchObject({ status: 404, type: 'not_found', requestId: expect.stringMatching(/^req_[0-9a-f]{32}$/) });

    const invalid = await client.checkoutSessions.create({ ...cart(9), items: [] }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(PaymentsApiError);
    expect(invalid).toMatchObject({
      status: 400,
      type: 'validation_error',
      message: 'At least one item is required',
      errors: [{ path: ['items'], message: 'At least one item is required' }],
    });

    const badKey = createPaymentsClient({ apiKey: 'mp_test_nope', baseUrl: `${stack.origin}/api/v1`, fetch: answers.fetch });
    await expect(badKey.balance.retrieve()).rejects.toMatchObject({ status: 401, type: 'authentication_error' });
  });
});
