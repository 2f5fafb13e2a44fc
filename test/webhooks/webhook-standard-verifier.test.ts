import Stripe from 'stripe';
import { signatureHeader } from '../../src/modules/webhooks/signature.crypto.js';

/**
 * The check: a receiver written with a widely used payments library's standard verifier for the
 * `t=…,v1=…` HMAC-SHA256 scheme (here Stripe's, offline, 300 s tolerance) accepts our deliveries.
 */
const stripe = new Stripe('sk_test_unused');
const body = JSON.stringify({ id: 'evt_1', eventId: 'evt_1', eventType: 'checkout.succeeded', type: 'checkout.succeeded', data: { amount: 4658 } });
const now = () => Math.floor(Date.now() / 1000);

describe('signatures verified by a standard t=…,v1=… verifier', () => {
  it('accepts a delivery signed with the endpoint secret', () => {
    const header = signatureHeader(['whsec_current'], now(), body);
    const event = stripe.webhooks.constructEvent(body, header, 'whsec_current', 300);
    expect(event.id).toBe('evt_1');
  });

  it('accepts either secret during a rotation, when both v1 signatures are sent', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], now(), body);
    expect(() => stripe.webhooks.constructEvent(body, header, 'whsec_new', 300)).not.toThrow();
    expect(() => stripe.webhooks.constructEvent(body, header, 'whsec_old', 300)).not.toThrow();
  });

  it('rejects a wrong secret, a changed body and a timestamp outside the 300 s tolerance', () => {
    const header = signatureHeader(['whsec_current'], now(), body);
    expect(() => stripe.webhooks.constructEvent(body, header, 'whsec_other', 300)).toThrow();
    expect(() => stripe.webhooks.constructEvent(`${body} `, header, 'whsec_current', 300)).toThrow();
    const stale = signatureHeader(['whsec_current'], now() - 301, body);
    expect(() => stripe.webhooks.constructEvent(body, stale, 'whsec_current', 300)).toThrow();
  });
});
