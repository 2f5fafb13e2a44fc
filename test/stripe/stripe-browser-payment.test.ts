/**
 * The hosted page's live payment with Stripe.js, server side (docs/acquirer.md, The hosted page and
 * Stripe.js): the pay call takes no card, opens the session's PaymentIntent and hands the page its client
 * secret; the browser confirms it at Stripe (the request Stripe.js makes, sent here to the recording proxy
 * over stripe-mock with `pm_card_visa`); Stripe's events and the customer's return from 3-D Secure end the
 * payment in the checkout workflow, which reads the intent itself. States the mock cannot reach (a
 * confirmation that needs action, an authentication that failed) are recorded answers (recorded.ts).
 */
import { jest } from '@jest/globals';
import { verifyLedger } from '../../src/modules/ledger/ledger-verify.service.js';
import { createSession, eventually, sql } from '../support/payments.js';
import { intentCreated, intentIn, intentUntried } from './recorded.js';
import { intentEvent } from './stripe-events.js';
import { BROWSER_PAY_BODY, useStripeStack } from './stripe-stack.js';

jest.setTimeout(120_000);

const { stack, biz, stripe, livePayment, openLivePayment, confirmInBrowser, settled, postEvent } = useStripeStack();

const intentPath = (intent: string) => new RegExp(`^/v1/payment_intents/${intent}$`);
const AUTHENTICATION_FAILED = {
  last_payment_error: { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'The provided PaymentMethod has failed authentication.' },
};
const sessionRow = async (id: string) => (await sql(stack, 'select status, failure_code, processor_charge_id, card_last4 from checkout_sessions where id = ?', [id]))[0];
/** The customer back at `return_url`, as Stripe sends them after 3-D Secure. */
const comeBack = (opened: { returnUrl: string; intent: string; clientSecret: string }, redirectStatus: string) =>
  stack.http.get(`${new URL(opened.returnUrl).pathname}?payment_intent=${opened.intent}&payment_intent_client_secret=${opened.clientSecret}&redirect_status=${redirectStatus}`, { offDocument: true });

describe('POST /api/checkout/:id/pay in live mode with Stripe.js', () => {
  it('takes no card: it opens the PaymentIntent (amount, currency, the session\'s Idempotency-Key, unconfirmed) and answers its client secret and return_url', async () => {
    stripe().requests.splice(0);
    const opened = await openLivePayment();
    expect(stripe().requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/payment_intents']);
    const [create] = stripe().requests;
    expect(create.idempotencyKey).toBe(`${opened.sessionId}:intent`);
    expect(Object.fromEntries(create.params)).toMatchObject({ amount: String(opened.total), currency: 'usd', confirm: 'false', 'metadata[session_id]': opened.sessionId });
    expect(opened.returnUrl).toMatch(new RegExp(`^https?://[^/]+/checkout/${opened.sessionId}$`));
    expect(await sessionRow(opened.sessionId)).toMatchObject({ status: 'processing', card_last4: null });
  });

  it('refuses a card number in the body: the card goes to Stripe, never here', async () => {
    const session = await createSession(stack, biz.liveKey);
    stripe().requests.splice(0);
    const res = await stack.http.post(`/api/checkout/${session.id}/pay`, { ...BROWSER_PAY_BODY, card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123' } });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('validation_error');
    expect(stripe().requests).toEqual([]);
    expect((await sessionRow(session.id)).status).toBe('pending');
  });

  it('answers the client secret even when opening the intent outlasts the pay\'s 10 s wait (a slow acquirer): the page has its card form', async () => {
    let slowed = false;
    stripe().answer('POST', /^\/v1\/payment_intents$/, async (request) => {
      // Once: the intents of later tests open at once.
      if (!slowed) {
        slowed = true;
        await new Promise((resolve) => setTimeout(resolve, 12_000));
      }
      return intentCreated(request);
    });
    const session = await createSession(stack, biz.liveKey);
    const started = Date.now();
    const res = await stack.http.post(`/api/checkout/${session.id}/pay`, BROWSER_PAY_BODY);
    expect(Date.now() - started).toBeGreaterThan(10_000);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'processing', redirectUrl: null, confirmation: { clientSecret: expect.stringContaining('_secret_'), returnUrl: session.checkoutUrl } });
    const [row] = await sql(stack, 'select reference from charge_references where session_id = ?', [session.id]);
    expect(res.body.data.confirmation.clientSecret.startsWith(`${row.reference}_secret_`)).toBe(true);
  });

  it('opens the page at the card again while its intent is untried (the pay\'s answer came without the secret, or the page was reloaded)', async () => {
    const opened = await openLivePayment();
    stripe().answer('GET', intentPath(opened.intent), intentUntried);
    const page = await stack.http.get(`/checkout/${opened.sessionId}`, { offDocument: true });
    expect(page.status).toBe(200);
    // The session's own intent's secret, and where Stripe sends the customer back: what the pay would have answered.
    expect(page.text).toContain(`data-client-secret="${opened.clientSecret}"`);
    expect(page.text).toContain(`data-return-url="${opened.returnUrl}"`);
    expect(page.text).toContain('stripe-checkout.js');
    expect(page.text).not.toContain('Payment in progress');
    expect(String(page.headers['content-security-policy'])).toContain('https://hooks.stripe.com');
    expect((await sessionRow(opened.sessionId)).status).toBe('processing');
  });

  it('shows the processing page, with no secret, once the intent was tried, or while Stripe cannot say', async () => {
    const opened = await openLivePayment();
    const page = () => stack.http.get(`/checkout/${opened.sessionId}`, { offDocument: true });
    // Confirmed and waiting on 3-D Secure: the workflow's to settle, not the customer's to pay again.
    stripe().answer('GET', intentPath(opened.intent), intentIn('requires_action'));
    const tried = await page();
    expect(tried.status).toBe(200);
    expect(tried.text).toContain('Payment in progress');
    expect(tried.text).not.toContain('_secret_');
    // Declined at Stripe, before the workflow has cancelled it: a decline ends the session, not a second card.
    stripe().answer('GET', intentPath(opened.intent), intentIn('requires_payment_method', { last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } }));
    const declined = await page();
    expect(declined.text).toContain('Payment in progress');
    expect(declined.text).not.toContain('_secret_');
    // Stripe answering errors: still the page, which refreshes and asks again.
    stripe().answer('GET', intentPath(opened.intent), () => ({ status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } }));
    const unknown = await page();
    expect(unknown.status).toBe(200);
    expect(unknown.text).toContain('Payment in progress');
    expect(unknown.text).not.toContain('_secret_');
  });

  it('shows the processing page, with no secret, past the session\'s expiry, though its intent is untried', async () => {
    const opened = await openLivePayment();
    stripe().answer('GET', intentPath(opened.intent), intentUntried);
    const before = await stack.http.get(`/checkout/${opened.sessionId}`, { offDocument: true });
    expect(before.text).toContain(`data-client-secret="${opened.clientSecret}"`);
    // Its expiry passed, the workflow not yet come by (a worker down): the customer is not offered the card.
    await sql(stack, "update checkout_sessions set expires_at = now() - interval '1 second' where id = ?", [opened.sessionId]);
    const after = await stack.http.get(`/checkout/${opened.sessionId}`, { offDocument: true });
    expect(after.text).toContain('Payment in progress');
    expect(after.text).not.toContain('_secret_');
  });

  it('refuses a second pay while the customer confirms the first at Stripe', async () => {
    const opened = await openLivePayment();
    const again = await stack.http.post(`/api/checkout/${opened.sessionId}/pay`, BROWSER_PAY_BODY);
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/processing/);
  });
});

describe('the outcome, from Stripe', () => {
  it('completes the session on payment_intent.succeeded, with the ledger posting of a completed payment', async () => {
    const { sessionId, intent } = await livePayment();
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'completed', processor_charge_id: intent });
    expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
  });

  it('fails the session on payment_intent.payment_failed, with the decline read from the intent, which is cancelled', async () => {
    const opened = await openLivePayment();
    stripe().answer('POST', new RegExp(`^/v1/payment_intents/${opened.intent}/confirm$`), intentIn('requires_payment_method', { last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' } }));
    stripe().answer('GET', intentPath(opened.intent), intentIn('requires_payment_method', { last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' } }));
    await confirmInBrowser(opened);
    const res = await postEvent(await intentEvent('payment_intent.payment_failed', { id: opened.intent, status: 'requires_payment_method', amount: opened.total }));
    expect(res.body.data.outcome).toBe('applied');
    expect(await settled(opened.sessionId)).toBe('failed');
    expect((await sessionRow(opened.sessionId)).failure_code).toBe('insufficient_funds');
    expect(stripe().requests.some((r) => r.path === `/v1/payment_intents/${opened.intent}/cancel`)).toBe(true);
  });

  it('records an event for an intent it never opened as unmatched, and moves nothing', async () => {
    const res = await postEvent(await intentEvent('payment_intent.succeeded', { id: 'pi_not_ours', status: 'succeeded', amount: 100 }));
    expect(res.status).toBe(200);
    expect(res.body.data.outcome).toBe('unmatched');
  });
});

describe('3-D Secure', () => {
  it('hands an intent that needs action to the page, and completes once the customer returns from the challenge', async () => {
    const opened = await openLivePayment();
    stripe().answer('POST', new RegExp(`^/v1/payment_intents/${opened.intent}/confirm$`), intentIn('requires_action', { next_action: { type: 'redirect_to_url', redirect_to_url: { url: 'https://hooks.stripe.com/3d_secure_2/hosted', return_url: opened.returnUrl } } }));
    stripe().answer('GET', intentPath(opened.intent), intentIn('requires_action'));
    expect((await confirmInBrowser(opened)).status).toBe('requires_action');
    // Read while the challenge is open: nothing ends, the session waits.
    const reads = () => stripe().requests.filter((r) => r.method === 'GET' && r.path === `/v1/payment_intents/${opened.intent}`).length;
    expect((await comeBack(opened, 'pending')).status).toBe(303);
    await eventually('the workflow to read the intent', () => reads() > 0);
    expect((await sessionRow(opened.sessionId)).status).toBe('processing');
    // Authenticated at the issuer; Stripe sends the customer back.
    stripe().answer('GET', intentPath(opened.intent), intentIn('succeeded'));
    const back = await comeBack(opened, 'succeeded');
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe(`/checkout/${opened.sessionId}`);
    expect(await settled(opened.sessionId)).toBe('completed');
    expect((await sessionRow(opened.sessionId)).processor_charge_id).toBe(opened.intent);
  });

  it('fails the session when the authentication fails, the intent cancelled so it cannot be paid later', async () => {
    const opened = await openLivePayment();
    stripe().answer('POST', new RegExp(`^/v1/payment_intents/${opened.intent}/confirm$`), intentIn('requires_action'));
    stripe().answer('GET', intentPath(opened.intent), intentIn('requires_payment_method', AUTHENTICATION_FAILED));
    await confirmInBrowser(opened);
    expect((await comeBack(opened, 'failed')).status).toBe(303);
    expect(await settled(opened.sessionId)).toBe('failed');
    expect((await sessionRow(opened.sessionId)).failure_code).toBe('card_declined');
    expect(stripe().requests.some((r) => r.path === `/v1/payment_intents/${opened.intent}/cancel`)).toBe(true);
  });
});
