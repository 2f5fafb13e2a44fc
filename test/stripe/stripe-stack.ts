/**
 * A stack whose live mode goes to Stripe (ACQUIRER=stripe), talking to stripe-mock through the recording
 * proxy (test/support/stripe-mock.ts): every request reaches the mock, which must accept it, and a
 * confirmed intent answers `succeeded` (a recorded Stripe response: the mock answers every intent at
 * `requires_payment_method`). With a paid live session to hand, and a way to deliver a signed event.
 */
import { afterAll, afterEach, beforeAll, expect } from '@jest/globals';
import { useBusiness, useStack } from '../support/use-stack.js';
import { createSession, payToCompletion, sql } from '../support/payments.js';
import { recordedStripe, type RecordedStripe } from '../support/stripe-mock.js';
import { intentIn } from './recorded.js';
import { signed, WEBHOOK_SECRET } from './stripe-events.js';

export function useStripeStack(env: Record<string, string> = {}) {
  let recorded: RecordedStripe | undefined;
  const stack = useStack(async () => {
    recorded = await recordedStripe();
    return { ACQUIRER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_stack', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: recorded.url, ...env };
  });
  const biz = useBusiness(stack);
  afterAll(async () => recorded?.close());
  beforeAll(() => recorded!.answer('POST', /^\/v1\/payment_intents\/[^/]+\/confirm$/, intentIn('succeeded')));
  afterEach(() => expect(recorded!.requests.filter((r) => r.mockStatus !== 200)).toEqual([]));
  const stripe = () => recorded!;

  /**
   * A live session paid through Stripe: its PaymentIntent's id, recorded under the session's key and as its
   * charge. Waits for the payment's end, not for the pay call's 10 s answer, which a loaded machine may give
   * as `processing` while the workflow still completes it.
   */
  async function livePayment(): Promise<{ sessionId: string; intent: string; total: number }> {
    const session = await createSession(stack, biz.liveKey);
    await payToCompletion(stack, session.id);
    const [row] = await sql(stack, 'select s.processor_charge_id, r.reference from checkout_sessions s join charge_references r on r.session_id = s.id where s.id = ?', [session.id]);
    expect(row.reference).toMatch(/^pi_/);
    expect(row.processor_charge_id).toBe(row.reference);
    return { sessionId: session.id, intent: row.reference, total: session.total };
  }

  /** Delivers `event` to the acquirer endpoint as Stripe would, signed with `secret` at `timestamp`. */
  function postEvent(event: unknown, opts: { secret?: string; timestamp?: number; signature?: string | null } = {}) {
    const { body, signature } = signed(event, opts.secret, opts.timestamp);
    const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
    if (opts.signature !== null) headers['Stripe-Signature'] = opts.signature ?? signature;
    return stack.http.post('/acquirer/stripe/webhook', undefined, { rawBody: body, headers, offDocument: true });
  }

  return { stack, biz, stripe, livePayment, postEvent };
}
