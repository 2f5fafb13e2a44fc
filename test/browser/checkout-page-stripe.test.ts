/**
 * The hosted page in live mode with ACQUIRER=stripe, in a real browser (docs/acquirer.md, The hosted page
 * and Stripe.js): Stripe.js is the stand-in (test/support/stripe-js.ts) loaded from STRIPE_JS_URL, whose API
 * calls go to stripe-mock through the recording proxy. The card is typed into the stand-in's card frame; the
 * API must never receive it. 3-D Secure is the stand-in's challenge, which sends the customer back to the
 * page; what the intent then is at Stripe is a recorded answer (test/stripe/recorded.ts).
 */
import { jest } from '@jest/globals';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { createSession, sql } from '../support/payments.js';
import { startStripeJsStandIn, type StripeJsStandIn } from '../support/stripe-js.js';
import { intentIn, intentUntried } from '../stripe/recorded.js';
import { useStripeStack } from '../stripe/stripe-stack.js';
import { launchChromium } from './chromium.js';

let browser: { context: BrowserContext; close: () => Promise<void> };
let standIn: StripeJsStandIn | undefined;
afterAll(async () => {
  await browser?.close();
  await standIn?.close();
});
const { stack, biz, stripe, settled } = useStripeStack(async () => {
  standIn = await startStripeJsStandIn();
  return { STRIPE_JS_URL: standIn.url };
});

jest.setTimeout(180_000);

// A card that asks for 3-D Secure at Stripe (its test card 4000 0027 6000 3184).
const CARD = '4000002760003184';
const AUTHENTICATION_FAILED = { last_payment_error: { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'The provided PaymentMethod has failed authentication.' } };

beforeAll(async () => {
  standIn!.apiBase = stripe().url;
  browser = await launchChromium();
  // Every confirmation needs action: the customer is sent to the issuer's challenge.
  stripe().answer('POST', /^\/v1\/payment_intents\/[^/]+\/confirm$/, intentIn('requires_action'));
  // Until confirmed, an intent is read as Stripe has it: open, untried, its secret naming it.
  stripe().answer('GET', /^\/v1\/payment_intents\/[^/]+$/, intentUntried);
});

/** Every request the browser sent the API's origin, with its body: the card number must be in none. */
function apiRequests(page: Page): { url: string; body: string }[] {
  const seen: { url: string; body: string }[] = [];
  page.on('request', (req: Request) => {
    if (new URL(req.url()).origin === new URL(stack.origin).origin) seen.push({ url: req.url(), body: req.postData() ?? '' });
  });
  return seen;
}

/** A live session's page, paid as far as the issuer's challenge: details sent, the card typed into Stripe's frame, confirmed. */
async function toChallenge({ secretLate = false } = {}) {
  const { id, checkoutUrl } = await createSession(stack, biz.liveKey);
  const page = await browser.context.newPage();
  // The pay's answer as the API gives it when the intent opened after the call's wait: `processing`, no secret.
  if (secretLate) {
    await page.route('**/pay', async (route) => {
      // Sent on to the API by the test's own client (which trusts the test certificate), its secret taken out.
      const real = await stack.http.post(new URL(route.request().url()).pathname, JSON.parse(route.request().postData() ?? '{}'));
      delete real.body.data.confirmation;
      await route.fulfill({ status: real.status, contentType: 'application/json', body: JSON.stringify(real.body) });
    });
  }
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const sent = apiRequests(page);
  const response = await page.goto(checkoutUrl);
  const csp = response!.headers()['content-security-policy'];
  await page.getByLabel('Name on card').fill('Ada Lovelace');
  await page.getByRole('button', { name: /^Pay / }).click();
  const card = page.frameLocator('#payment-element iframe');
  // The card form comes with the pay's answer, which may take the pay's whole bound (30 s) on a busy machine.
  await card.getByLabel('Card number').fill(CARD, { timeout: 60_000 });
  await card.getByLabel('Expiry').fill('12 / 34');
  await card.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.waitForURL(`${standIn!.origin}/3d_secure?**`);
  const intent = new URL(page.url()).searchParams.get('payment_intent')!;
  return { id: id as string, page, intent, sent, errors, csp };
}

function expectCardOnlyAtStripe(sent: { url: string; body: string }[]) {
  expect(sent.some((r) => r.url.endsWith('/pay'))).toBe(true);
  for (const { body } of sent) expect(body.replace(/\D/g, '')).not.toContain(CARD);
  const atStripe = standIn!.requests.find((r) => r.path === '/v1/payment_methods' && new URLSearchParams(r.body).get('card[number]') === CARD);
  expect(atStripe?.authorization).toBe('Bearer pk_test_stack');
}

describe('the hosted page with Stripe.js (live mode, ACQUIRER=stripe)', () => {
  it('loads Stripe.js from its configured address under a policy that allows Stripe\'s script, frames and API', async () => {
    const { page, csp, errors } = await toChallenge();
    expect(csp).toContain(`script-src 'self' ${standIn!.origin}`);
    expect(csp).toContain(`frame-src ${standIn!.origin} https://hooks.stripe.com`);
    expect(csp).toMatch(/connect-src 'self' https:\/\/api\.stripe\.com/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a pay that never reached the service says so and leaves the form to try again, which opens the card form', async () => {
    const { id, checkoutUrl } = await createSession(stack, biz.liveKey);
    const page = await browser.context.newPage();
    await page.goto(checkoutUrl);
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.route('**/pay', (route) => route.abort('connectionreset'));
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('alert').getByText('We could not reach the payment service.', { exact: false }).waitFor();
    expect((await sql(stack, 'select status from checkout_sessions where id = ?', [id]))[0].status).toBe('pending');
    await page.unroute('**/pay');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.frameLocator('#payment-element iframe').getByLabel('Card number').waitFor({ timeout: 60_000 });
    await page.close();
  });

  it('completes after 3-D Secure: the customer returns, the workflow reads the intent succeeded; the API never received the card', async () => {
    const { id, page, intent, sent } = await toChallenge();
    // The intent the browser confirmed at Stripe is the one the service opened and recorded for the session.
    expect((await sql(stack, 'select reference from charge_references where session_id = ?', [id]))[0].reference).toBe(intent);
    stripe().answer('GET', new RegExp(`^/v1/payment_intents/${intent}$`), intentIn('succeeded'));
    await page.getByRole('link', { name: 'Complete authentication' }).click();
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 60_000 });
    expect(await settled(id)).toBe('completed');
    expectCardOnlyAtStripe(sent);
    await page.close();
  });

  it('a pay answered without the secret (the intent opened after its wait) brings the customer back to the card, and the payment completes', async () => {
    const { id, page, intent, sent, errors } = await toChallenge({ secretLate: true });
    expect((await sql(stack, 'select reference from charge_references where session_id = ?', [id]))[0].reference).toBe(intent);
    stripe().answer('GET', new RegExp(`^/v1/payment_intents/${intent}$`), intentIn('succeeded'));
    await page.getByRole('link', { name: 'Complete authentication' }).click();
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 60_000 });
    expect(await settled(id)).toBe('completed');
    expectCardOnlyAtStripe(sent);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('fails when the authentication fails, and the intent is cancelled; the API never received the card', async () => {
    const { id, page, intent, sent } = await toChallenge();
    stripe().answer('GET', new RegExp(`^/v1/payment_intents/${intent}$`), intentIn('requires_payment_method', AUTHENTICATION_FAILED));
    await page.getByRole('link', { name: 'Fail authentication' }).click();
    await page.getByRole('heading', { name: 'Payment failed' }).waitFor({ timeout: 60_000 });
    expect(await settled(id)).toBe('failed');
    expect(stripe().requests.some((r) => r.path === `/v1/payment_intents/${intent}/cancel`)).toBe(true);
    expectCardOnlyAtStripe(sent);
    await page.close();
  });
});
