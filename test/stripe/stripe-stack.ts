/**
 * A stack whose live mode goes to Stripe (ACQUIRER=stripe), talking to stripe-mock through the recording
 * proxy (test/support/stripe-mock.ts): every request reaches the mock, which must accept it. A live payment
 * is the hosted page's: the pay call opens the PaymentIntent and answers its client secret, the browser
 * confirms it at Stripe (here, the request Stripe.js makes, sent to the proxy), and Stripe's signed
 * `payment_intent.succeeded` ends it. The mock answers every intent at `requires_payment_method`, so the
 * confirmation's and the intent's later answers are recorded Stripe responses (test/stripe/recorded.ts).
 */
import { afterAll, afterEach, beforeAll, expect } from '@jest/globals';
import { useBusiness, useStack } from '../support/use-stack.js';
import { createSession, eventually, sql } from '../support/payments.js';
import { recordedStripe, type RecordedStripe } from '../support/stripe-mock.js';
import { intentCreated, intentIn } from './recorded.js';
import { intentEvent, signed, WEBHOOK_SECRET } from './stripe-events.js';

export const PUBLISHABLE_KEY = 'pk_test_stack';
/** The customer's details as the live page sends them: no card. */
export const BROWSER_PAY_BODY = { name: 'Ada Lovelace', email: 'ada@example.com' };

/** `env`: more of the stack's environment, or a function that makes it as the stack starts (a stand-in's address). */
export function useStripeStack(env: Record<string, string> | (() => Promise<Record<string, string>>) = {}) {
  let recorded: RecordedStripe | undefined;
  const stack = useStack(async () => {
    recorded = await recordedStripe();
    return {
      ACQUIRER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_stack',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PUBLISHABLE_KEY: PUBLISHABLE_KEY,
      STRIPE_API_BASE: recorded.url,
      ...(typeof env === 'function' ? await env() : env),
    };
  });
  const biz = useBusiness(stack);
  afterAll(async () => recorded?.close());
  beforeAll(() => {
    recorded!.answer('POST', /^\/v1\/payment_intents$/, intentCreated);
    recorded!.answer('POST', /^\/v1\/payment_intents\/[^/]+\/confirm$/, intentIn('succeeded'));
    recorded!.answer('GET', /^\/v1\/payment_intents\/[^/]+$/, intentIn('succeeded'));
  });
  afterEach(() => expect(recorded!.requests.filter((r) => r.mockStatus !== 200)).toEqual([]));
  const stripe = () => recorded!;

  /** A live session whose pay call opened its PaymentIntent: the intent, and what the page was handed. */
  async function openLivePayment(overrides: Record<string, unknown> = {}) {
    const session = await createSession(stack, biz.liveKey, overrides);
    const res = await stack.http.post(`/api/checkout/${session.id}/pay`, BROWSER_PAY_BODY);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'processing', redirectUrl: null, confirmation: { clientSecret: expect.stringContaining('_secret_'), returnUrl: session.checkoutUrl } });
    const [row] = await sql(stack, 'select reference from charge_references where session_id = ?', [session.id]);
    expect(row.reference).toMatch(/^pi_/);
    expect(res.body.data.confirmation.clientSecret.startsWith(`${row.reference}_secret_`)).toBe(true);
    return { sessionId: session.id as string, intent: row.reference as string, total: session.total as number, ...(res.body.data.confirmation as { clientSecret: string; returnUrl: string }) };
  }

  /**
   * What Stripe.js sends when the customer confirms on the page: the intent confirmed at Stripe with the
   * card's PaymentMethod and the client secret, never through this service. (stripe-mock takes only secret
   * keys; Stripe itself takes Stripe.js's publishable key.)
   */
  async function confirmInBrowser(opened: { intent: string; clientSecret: string; returnUrl: string }, paymentMethod = 'pm_card_visa') {
    const body = new URLSearchParams({ payment_method: paymentMethod, client_secret: opened.clientSecret, return_url: opened.returnUrl });
    const res = await fetch(`${recorded!.url}/v1/payment_intents/${opened.intent}/confirm`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sk_test_browser', 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    return (await res.json()) as Record<string, any>;
  }

  /** The session's status once it has left `processing` (or `processing` at the timeout). */
  async function settled(sessionId: string, timeoutMs = 60_000): Promise<string> {
    return eventually(`session ${sessionId} to settle`, async () => {
      const [row] = await sql(stack, 'select status from checkout_sessions where id = ?', [sessionId]);
      return row.status !== 'processing' && row.status;
    }, timeoutMs);
  }

  /**
   * A live session paid through the hosted page's Stripe flow: opened, confirmed in the browser, and ended
   * by Stripe's signed `payment_intent.succeeded`. Its PaymentIntent is recorded as its charge.
   */
  async function livePayment(): Promise<{ sessionId: string; intent: string; total: number }> {
    const opened = await openLivePayment();
    await confirmInBrowser(opened);
    const res = await postEvent(await intentEvent('payment_intent.succeeded', { id: opened.intent, status: 'succeeded', amount: opened.total }));
    expect(res.body.data).toMatchObject({ outcome: 'applied' });
    expect(await settled(opened.sessionId)).toBe('completed');
    const [row] = await sql(stack, 'select processor_charge_id from checkout_sessions where id = ?', [opened.sessionId]);
    expect(row.processor_charge_id).toBe(opened.intent);
    return { sessionId: opened.sessionId, intent: opened.intent, total: opened.total };
  }

  /** Delivers `event` to the acquirer endpoint as Stripe would, signed with `secret` at `timestamp`. */
  function postEvent(event: unknown, opts: { secret?: string; timestamp?: number; signature?: string | null } = {}) {
    const { body, signature } = signed(event, opts.secret, opts.timestamp);
    const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
    if (opts.signature !== null) headers['Stripe-Signature'] = opts.signature ?? signature;
    return stack.http.post('/acquirer/stripe/webhook', undefined, { rawBody: body, headers, offDocument: true });
  }

  return { stack, biz, stripe, livePayment, openLivePayment, confirmInBrowser, settled, postEvent };
}
