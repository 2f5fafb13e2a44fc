/**
 * A customer who never comes back from Stripe: the session's checkout workflow settles the charge at the
 * session's expiry (docs/acquirer.md, The hosted page and Stripe.js). The intent is cancelled at Stripe, so
 * nothing can be charged afterwards, and the session, which was `processing`, ends `failed` as a payment in
 * doubt does (docs/decisions.md). Sessions here live 8 seconds; the proxy answers as recorded.ts says.
 */
import { jest } from '@jest/globals';
import { sql } from '../support/payments.js';
import { intentIn } from './recorded.js';
import { useStripeStack } from './stripe-stack.js';

jest.setTimeout(120_000);

const { stack, stripe, openLivePayment, confirmInBrowser, settled } = useStripeStack({ SESSION_TTL: '8s' });

const cancelled = (intent: string) => stripe().requests.some((r) => r.method === 'POST' && r.path === `/v1/payment_intents/${intent}/cancel`);
const sessionRow = async (id: string) => (await sql(stack, 'select status, failure_code, processor_charge_id from checkout_sessions where id = ?', [id]))[0];

describe('the checkout workflow at the expiry of a session paid in the browser', () => {
  it('cancels an intent left waiting for 3-D Secure and fails the session', async () => {
    const opened = await openLivePayment();
    stripe().answer('POST', new RegExp(`^/v1/payment_intents/${opened.intent}/confirm$`), intentIn('requires_action'));
    stripe().answer('GET', new RegExp(`^/v1/payment_intents/${opened.intent}$`), intentIn('requires_action'));
    expect((await confirmInBrowser(opened)).status).toBe('requires_action');
    expect(await settled(opened.sessionId, 60_000)).toBe('failed');
    expect(cancelled(opened.intent)).toBe(true);
    expect(await sessionRow(opened.sessionId)).toMatchObject({ status: 'failed', processor_charge_id: null });
  });

  it('cancels an intent the customer never confirmed and fails the session with processing_error', async () => {
    const opened = await openLivePayment();
    stripe().answer('GET', new RegExp(`^/v1/payment_intents/${opened.intent}$`), intentIn('requires_payment_method'));
    expect(await settled(opened.sessionId, 60_000)).toBe('failed');
    expect(cancelled(opened.intent)).toBe(true);
    expect(await sessionRow(opened.sessionId)).toMatchObject({ status: 'failed', failure_code: 'processing_error' });
  });

  it('completes a payment that succeeded at Stripe though neither the event nor the customer came back', async () => {
    const opened = await openLivePayment();
    stripe().answer('GET', new RegExp(`^/v1/payment_intents/${opened.intent}$`), intentIn('succeeded'));
    await confirmInBrowser(opened);
    expect(await settled(opened.sessionId, 60_000)).toBe('completed');
    expect(cancelled(opened.intent)).toBe(false);
    expect((await sessionRow(opened.sessionId)).processor_charge_id).toBe(opened.intent);
  });
});
