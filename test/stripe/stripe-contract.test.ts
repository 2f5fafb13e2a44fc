/**
 * The connector against Stripe's own description of its API: stripe-mock (started by the global setup from
 * the project's scripts, refusing any Stripe-Version but the pinned one) checks every request's path,
 * method and parameters against the OpenAPI description and answers 400 to one it does not describe.
 * Every request the connector can make is made here, each branch that sends one, and the mock must accept
 * each. Branches that need a state the stateless mock never answers with get a recorded answer, but the
 * request still goes to the mock first (test/support/stripe-mock.ts).
 */
import { jest } from '@jest/globals';
import Stripe from 'stripe';
import { createStripeClient, STRIPE_API_VERSION } from '../../src/modules/stripe/stripe.client.js';
import { checkStripeKey, createStripeProcessor } from '../../src/modules/stripe/index.js';
import { createLogger } from '../../src/log.js';
import { NO_WITHDRAWAL_RAIL_MESSAGE } from '../../src/modules/processor/index.js';
import { emptyEvidence } from '../../src/modules/disputes/dispute.rules.js';
import { recordedStripe, stripeApiDescription, stripeMockUrl, type RecordedStripe } from '../support/stripe-mock.js';
import { parsedCard } from '../support/payments.js';
import { STRIPE_EVIDENCE_LIMITS, stripeEvidence } from '../../src/modules/stripe/stripe-evidence.rules.js';
import { EVIDENCE_FIELDS } from '../../src/modules/disputes/dispute.entity.js';
import { intentIn, invalidRequest, refundIn, disputeIn } from './recorded.js';

jest.setTimeout(30_000);

/** Every request the connector makes, by method and path (ids as `:id`): the list this file must cover. */
const CONNECTOR_REQUESTS = [
  'POST /v1/payment_methods',
  'POST /v1/payment_intents',
  'POST /v1/payment_intents/:id/confirm',
  'GET /v1/payment_intents/:id',
  'POST /v1/payment_intents/:id/cancel',
  'POST /v1/refunds',
  'GET /v1/refunds/:id',
  'GET /v1/refunds',
  'POST /v1/disputes/:id',
  'POST /v1/disputes/:id/close',
  'GET /v1/disputes/:id',
  'GET /v1/balance',
];
const template = (path: string) => path.replace(/^(\/v1\/[a-z_]+)\/[^/]+/, '$1/:id');

let stripe: RecordedStripe;
beforeAll(async () => {
  stripe = await recordedStripe();
});
afterAll(async () => stripe?.close());
const covered = new Set<string>();
afterEach(() => {
  for (const request of stripe.requests) {
    // The contract: whatever a test answered it with, the mock accepted the request as Stripe's API describes it.
    expect({ request: `${request.method} ${request.path}`, status: request.mockStatus }).toEqual({ request: `${request.method} ${request.path}`, status: 200 });
    covered.add(`${request.method} ${template(request.path)}`);
  }
  stripe.reset();
});

const connector = () => createStripeProcessor(createStripeClient({ secretKey: 'sk_test_contract', apiBase: stripe.url }), { noRailMessage: NO_WITHDRAWAL_RAIL_MESSAGE });
const card = parsedCard('4242424242424242', 2034);
const charge = { token: 'pm_card_visa', amountInCents: 2551, currency: 'USD' as const, idempotencyKey: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', livemode: true };

describe('the connector against stripe-mock', () => {
  it('pins the API version the mock serves (the mock refuses any other with -strict-version-check)', async () => {
    expect(STRIPE_API_VERSION).toBe('2026-08-26.dahlia');
    const other = new Stripe('sk_test_other', { host: '127.0.0.1', port: new URL(stripeMockUrl()).port, protocol: 'http' });
    await expect(other.paymentMethods.create({ type: 'card', card: { token: 'tok_visa' } })).rejects.toMatchObject({ statusCode: 400 });
  });

  it('tokenises the card as a PaymentMethod, with its brand and last four', async () => {
    const token = await connector().tokenize(card, true);
    expect(token).toEqual({ token: expect.stringMatching(/^pm_/), brand: 'visa', last4: '4242' });
    expect(stripe.requests[0].params.get('card[number]')).toBe('4242424242424242');
  });

  it('opens a charge as a PaymentIntent, unconfirmed, with an Idempotency-Key', async () => {
    const prepared = await connector().prepareCharge(charge);
    expect(prepared).toEqual({ status: 'prepared', reference: expect.stringMatching(/^pi_/) });
    const [sent] = stripe.requests;
    expect(sent.params.get('confirm')).toBe('false');
    expect(sent.params.get('amount')).toBe('2551');
    expect(sent.idempotencyKey).toBe(`${charge.idempotencyKey}:intent`);
  });

  it("confirms it with the card; the mock's fixture (an intent back at requires_payment_method) reads as a decline, and the intent is cancelled", async () => {
    const outcome = await connector().charge({ ...charge, reference: 'pi_contract' });
    expect(outcome).toEqual({ status: 'declined', code: 'card_declined', message: 'Your card was declined.' });
    expect(stripe.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/payment_intents/pi_contract/confirm', 'POST /v1/payment_intents/pi_contract/cancel']);
    expect(stripe.requests[0].idempotencyKey).toBe(`${charge.idempotencyKey}:confirm`);
  });

  it('looks a recorded intent up, and makes no request for a key closed with none', async () => {
    const processor = connector();
    expect(await processor.retrieveCharge({ idempotencyKey: charge.idempotencyKey, livemode: true, reference: null })).toEqual({ status: 'not_found' });
    expect(stripe.requests).toHaveLength(0);
    stripe.answer('POST', /\/cancel$/, intentIn('canceled'));
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('requires_confirmation'));
    expect(await processor.retrieveCharge({ idempotencyKey: charge.idempotencyKey, livemode: true, reference: 'pi_contract' })).toEqual({ status: 'not_found' });
  });

  it('refunds by the refund id; a pending refund is read again by its id', async () => {
    const refund = { chargeId: 'pi_contract', amountInCents: 2551, idempotencyKey: 'ref_contract', livemode: true };
    expect(await connector().refund(refund)).toEqual({ status: 'succeeded', refundId: expect.stringMatching(/^re_/) });
    expect(stripe.requests[0].idempotencyKey).toBe('ref_contract');
    stripe.answer('POST', /^\/v1\/refunds$/, refundIn('pending'));
    expect(await connector().refund(refund)).toMatchObject({ status: 'succeeded' }); // the mock's read of it: succeeded
  });

  it("finds its refund among the intent's when a late retry is refused as already refunded", async () => {
    stripe.answer('POST', /^\/v1\/refunds$/, invalidRequest('charge_already_refunded', 'Charge has already been refunded.'));
    const outcome = await connector().refund({ chargeId: 'pi_contract', amountInCents: 2551, idempotencyKey: 'ref_contract', livemode: true });
    expect(outcome.status).toBe('declined'); // the mock's list holds no refund of ours
    expect(stripe.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/refunds', 'GET /v1/refunds']);
  });

  it('submits evidence with disputes.update (submit: true), and accepts a dispute with disputes.close', async () => {
    const processor = connector();
    const evidence = { ...emptyEvidence(), customerEmail: 'ada@example.com', refundPolicy: 'Refunds within 30 days.' };
    await processor.submitDisputeEvidence({ disputeId: 'dsp_1', acquirerDisputeId: 'du_contract', livemode: true, evidence, idempotencyKey: 'dsp_1-evidence-1' });
    expect(stripe.requests[0].params.get('submit')).toBe('true');
    expect(stripe.requests[0].params.get('evidence[customer_email_address]')).toBe('ada@example.com');
    await processor.acceptDispute({ disputeId: 'dsp_1', acquirerDisputeId: 'du_contract', livemode: true });
    stripe.answer('POST', /\/close$/, invalidRequest('resource_missing', 'This dispute is already closed.'));
    stripe.answer('GET', /^\/v1\/disputes\//, disputeIn('lost'));
    await processor.acceptDispute({ disputeId: 'dsp_1', acquirerDisputeId: 'du_contract', livemode: true });
  });

  it("holds each evidence field to the maxLength Stripe's description of the pinned version gives it, and sends no field it does not describe", () => {
    const evidence = stripeApiDescription(STRIPE_API_VERSION).paths['/v1/disputes/{dispute}'].post.requestBody.content['application/x-www-form-urlencoded'].schema.properties.evidence.properties;
    for (const [field, limit] of Object.entries(STRIPE_EVIDENCE_LIMITS)) expect({ field, limit }).toEqual({ field, limit: evidence[field].maxLength });
    const sent = Object.keys(stripeEvidence(Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f, 'x']))));
    expect(sent.sort()).toEqual(Object.keys(STRIPE_EVIDENCE_LIMITS).sort());
  });

  it('checks the key with one read of the balance', async () => {
    await checkStripeKey({ secretKey: 'sk_test_contract', apiBase: stripe.url }, createLogger('silent'));
    expect(stripe.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/balance']);
  });

  it('sends no payout: Stripe has no rail to the spec\'s destinations', async () => {
    const request = { idempotencyKey: 'wd_1', amountInCents: 1000, destination: { destinationType: 'wallet' as const, destinationDetails: { walletEmail: 'a@b.example' } }, livemode: true };
    expect(await connector().payout(request)).toEqual({ status: 'declined', message: NO_WITHDRAWAL_RAIL_MESSAGE });
    expect(stripe.requests).toHaveLength(0);
  });

  it('covers every request the connector can make', () => {
    expect([...covered].sort()).toEqual([...CONNECTOR_REQUESTS].sort());
  });
});
