/**
 * A stack configured with ACQUIRER=stripe, talking to stripe-mock: its live mode takes a payment through
 * Stripe's PaymentIntents (opened here, confirmed by the browser: stripe-stack.ts), refunds it, and records a dispute from a signed `charge.dispute.created`, and the
 * ledger verifies; test mode still pays with the simulator; live withdrawals, which have no Stripe rail,
 * are refused. The mock cannot say that a confirmed intent succeeded (it answers every intent at
 * `requires_payment_method`), so the confirmation's answer is a recorded Stripe response (recorded Stripe
 * responses: test/stripe/recorded.ts); every request still goes to the mock, which must accept it.
 */
import { jest } from '@jest/globals';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { checkoutWorkflowId, disputeWorkflowId } from '../../contracts/workflow-ids.js';
import { createSession, eventually, payToCompletion, sql } from '../support/payments.js';
import { disputeEvent } from './stripe-events.js';
import { useStripeStack } from './stripe-stack.js';

jest.setTimeout(120_000);

const { stack, biz, stripe: recorded, livePayment, postEvent } = useStripeStack();

describe('live mode with ACQUIRER=stripe', () => {
  it('takes a payment from the hosted page as a PaymentIntent it creates and the browser confirms at Stripe, read back when Stripe says it succeeded; the Temporal UI names Stripe', async () => {
    recorded().requests.splice(0);
    const { sessionId, intent } = await livePayment();
    const calls = recorded().requests.map((r) => `${r.method} ${r.path}`);
    // The confirmation is the browser's (Stripe.js), not this service's: the service creates and reads.
    expect(calls).toEqual(['POST /v1/payment_intents', `POST /v1/payment_intents/${intent}/confirm`, `GET /v1/payment_intents/${intent}`]);
    expect(recorded().requests[0].idempotencyKey).toBe(`${sessionId}:intent`);
    const summary = await stack.temporal.workflow.getHandle(checkoutWorkflowId(sessionId)).describe().then((d) => d.staticSummary());
    expect(summary).toMatch(/ via stripe$/);
  });

  it('refunds a live payment with a Stripe refund keyed by the refund id', async () => {
    const first = await livePayment();
    await livePayment(); // the refund takes the whole total, fee included: a business's only sale cannot cover it
    recorded().requests.splice(0);
    const created = await stack.http.post('/api/refunds', { checkoutSessionId: first.sessionId }, { key: biz.liveKey });
    expect(created.status).toBe(201);
    const done = await eventually('the refund to complete', async () => {
      const res = await stack.http.get(`/api/refunds/${created.body.data.id}`, { key: biz.liveKey });
      return res.body.data.status === 'completed' && res.body.data;
    }, 60_000);
    expect(done.checkoutSessionId).toBe(first.sessionId);
    const refund = recorded().requests.find((r) => r.method === 'POST' && r.path === '/v1/refunds')!;
    expect(refund.params.get('payment_intent')).toBe(first.intent);
    expect(refund.idempotencyKey).toBe(created.body.data.id);
  });

  it('records a dispute from a signed charge.dispute.created, feeding the dispute workflow, and the ledger verifies', async () => {
    const { sessionId, intent, total } = await livePayment();
    const event = await disputeEvent('charge.dispute.created', { id: 'du_live_1', paymentIntent: intent, status: 'needs_response', amount: total });
    const res = await postEvent(event);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ eventId: event.id, outcome: 'applied', disputeId: expect.stringMatching(/^dsp_/) });
    const dispute = (await stack.http.get(`/api/disputes/${res.body.data.disputeId}`, { key: biz.liveKey })).body.data;
    expect(dispute).toMatchObject({ checkoutSessionId: sessionId, status: 'needs_response', reason: 'fraudulent', amountInCents: total, livemode: true });
    const handle = stack.temporal.workflow.getHandle(disputeWorkflowId(dispute.id));
    await eventually('the dispute workflow to start', () => handle.describe().then(() => true, () => false));
    expect(await (await handle.describe()).staticSummary()).toMatch(/reported by stripe$/);
    expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
  });

  it('still pays test keys with the simulator, and makes no Stripe request for them', async () => {
    recorded().requests.splice(0);
    const session = await createSession(stack, biz.testKey);
    await payToCompletion(stack, session.id);
    expect(recorded().requests).toEqual([]);
    const [row] = await sql(stack, 'select processor_charge_id from checkout_sessions where id = ?', [session.id]);
    expect(row.processor_charge_id).toMatch(/^ch_sim_/);
  });

  it('refuses a live withdrawal: Stripe has no rail to wallets or crypto addresses, and none is configured', async () => {
    const res = await stack.http.post('/api/withdrawals', { amount: 1, destinationType: 'wallet', destinationDetails: { walletEmail: 'payouts@acme.test' } }, { key: biz.liveKey });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', message: 'Live withdrawals are not enabled on this server: no withdrawal rail is configured' });
  });
});
