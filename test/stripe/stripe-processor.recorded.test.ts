/**
 * Every branch of the Stripe connector's charges, refunds and disputes, driven with recorded Stripe
 * responses where stripe-mock (stateless) cannot answer: each request still goes to the mock, which must
 * accept it, and the state it cannot know (an intent after its confirmation, a refund still pending, a
 * dispute closed) is a recorded answer (test/stripe/recorded.ts). Each test's name says so.
 */
import { jest } from '@jest/globals';
import { createStripeClient, createStripeProcessor } from '../../src/modules/stripe/index.js';
import {
  NO_WITHDRAWAL_RAIL_MESSAGE,
  AcquirerConfigurationError,
  AcquirerRefusedError,
  ProcessorUnavailableError,
} from '../../src/modules/processor/index.js';
import { checkStripeKey, keyTaken, stripeKeyReadiness } from '../../src/modules/stripe/stripe-access.js';
import { ConfigError } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { loadConfig } from '../../src/config.js';
import { startOpsPort } from '../../src/main/ops-port.js';
import { emptyEvidence } from '../../src/modules/disputes/dispute.rules.js';
import { recordedStripe, type RecordedStripe } from '../support/stripe-mock.js';
import { cardDeclined, disputeIn, intentIn, invalidRequest, refundIn } from './recorded.js';

jest.setTimeout(30_000);

let stripe: RecordedStripe;
beforeAll(async () => {
  stripe = await recordedStripe();
});
afterAll(async () => stripe?.close());
afterEach(() => {
  // Whatever was recorded, the mock accepted every request the connector sent.
  expect(stripe.requests.filter((r) => r.mockStatus !== 200)).toEqual([]);
  stripe.reset();
});

const connector = () => createStripeProcessor(createStripeClient({ secretKey: 'sk_test_recorded', apiBase: stripe.url }), { noRailMessage: NO_WITHDRAWAL_RAIL_MESSAGE });
const charge = { token: 'pm_card_visa', amountInCents: 2551, currency: 'USD' as const, idempotencyKey: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', livemode: true, reference: 'pi_recorded' };
const key = { idempotencyKey: charge.idempotencyKey, livemode: true, reference: 'pi_recorded' };
const sent = () => stripe.requests.map((r) => `${r.method} ${r.path}`);
const CANCEL = 'POST /v1/payment_intents/pi_recorded/cancel';
const RETRIEVE = 'GET /v1/payment_intents/pi_recorded';

describe('a charge (recorded Stripe responses)', () => {
  it('is succeeded when the confirmation answers succeeded: the charge id is the intent', async () => {
    stripe.answer('POST', /\/confirm$/, intentIn('succeeded'));
    expect(await connector().charge(charge)).toEqual({ status: 'succeeded', chargeId: 'pi_recorded' });
    expect(sent()).toEqual(['POST /v1/payment_intents/pi_recorded/confirm']);
  });

  it.each([
    ['insufficient_funds', 'insufficient_funds', 'Your card has insufficient funds.'],
    ['expired_card', 'expired_card', 'Your card has expired.'],
    ['do_not_honor', 'card_declined', 'Your card was declined.'],
  ])('is declined on a card error (%s → %s), and its intent cancelled so nothing confirms it later', async (declineCode, code, message) => {
    stripe.answer('POST', /\/confirm$/, cardDeclined(declineCode));
    expect(await connector().charge(charge)).toEqual({ status: 'declined', code, message });
    expect(sent()).toContain(CANCEL);
  });

  it('is declined when the card asks for authentication the hosted page cannot give (requires_action), the intent cancelled', async () => {
    stripe.answer('POST', /\/confirm$/, intentIn('requires_action'));
    expect(await connector().charge(charge)).toEqual({ status: 'declined', code: 'card_declined', message: 'Your card was declined.' });
    expect(sent()).toContain(CANCEL);
  });

  it('reads the intent when confirming it again is refused (confirmed before the key expired): succeeded stands', async () => {
    stripe.answer('POST', /\/confirm$/, invalidRequest('payment_intent_unexpected_state', 'This PaymentIntent has already succeeded.'));
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('succeeded'));
    expect(await connector().charge(charge)).toEqual({ status: 'succeeded', chargeId: 'pi_recorded' });
  });

  it('is refused, never made, when a lookup cancelled its intent first', async () => {
    stripe.answer('POST', /\/confirm$/, invalidRequest('payment_intent_unexpected_state', 'This PaymentIntent was canceled.'));
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('canceled'));
    expect(await connector().charge(charge)).toEqual({ status: 'declined', code: 'processing_error', message: expect.any(String) });
    expect(sent()).not.toContain(CANCEL);
  });

  it('throws (outcome unknown, asked again) when Stripe cannot be reached or fails', async () => {
    stripe.answer('POST', /\/confirm$/, () => ({ status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } }));
    await expect(connector().charge(charge)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    const unreachable = createStripeProcessor(createStripeClient({ secretKey: 'sk_test_x', apiBase: 'http://127.0.0.1:1' }), { noRailMessage: '' });
    await expect(unreachable.charge(charge)).rejects.toBeInstanceOf(ProcessorUnavailableError);
  });

  it('is declined when opening it is refused for an amount below Stripe\'s minimum: nothing opened, nothing charged', async () => {
    stripe.answer('POST', /^\/v1\/payment_intents$/, invalidRequest('amount_too_small', 'Amount must be at least $0.50 usd'));
    expect(await connector().prepareCharge({ ...charge, amountInCents: 31 })).toEqual({ status: 'declined', code: 'processing_error', message: expect.any(String) });
  });
});

describe('a lookup keeps not_found final (recorded Stripe responses)', () => {
  it('finds a succeeded intent', async () => {
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('succeeded'));
    expect(await connector().retrieveCharge(key)).toEqual({ status: 'succeeded', chargeId: 'pi_recorded' });
    expect(sent()).toEqual([RETRIEVE]);
  });

  it('cancels an intent never confirmed before answering not_found', async () => {
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('requires_confirmation'));
    stripe.answer('POST', /\/cancel$/, intentIn('canceled'));
    expect(await connector().retrieveCharge(key)).toEqual({ status: 'not_found' });
    expect(sent()).toEqual([RETRIEVE, CANCEL]);
  });

  it('answers the charge when its confirmation wins the race with the cancel (cancel refused, the intent succeeded)', async () => {
    let reads = 0;
    stripe.answer('GET', /^\/v1\/payment_intents\//, (request) => intentIn(++reads === 1 ? 'requires_confirmation' : 'succeeded')(request));
    stripe.answer('POST', /\/cancel$/, invalidRequest('payment_intent_unexpected_state', 'This PaymentIntent has already succeeded.'));
    expect(await connector().retrieveCharge(key)).toEqual({ status: 'succeeded', chargeId: 'pi_recorded' });
    expect(sent()).toEqual([RETRIEVE, CANCEL, RETRIEVE]);
  });

  it('answers a recorded decline, cancelling the intent', async () => {
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('requires_payment_method', { last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' } }));
    stripe.answer('POST', /\/cancel$/, intentIn('canceled'));
    expect(await connector().retrieveCharge(key)).toEqual({ status: 'declined', code: 'insufficient_funds', message: 'Your card has insufficient funds.' });
  });

  it('answers not_found for a cancelled intent, with nothing to cancel', async () => {
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('canceled'));
    expect(await connector().retrieveCharge(key)).toEqual({ status: 'not_found' });
    expect(sent()).toEqual([RETRIEVE]);
  });

  it.each(['processing', 'requires_capture'])('asks again later while the intent is %s', async (status) => {
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn(status));
    await expect(connector().retrieveCharge(key)).rejects.toBeInstanceOf(ProcessorUnavailableError);
  });
});

describe("a refund, Stripe's statuses mapped (recorded Stripe responses)", () => {
  const refund = { chargeId: 'pi_recorded', amountInCents: 2551, idempotencyKey: 'ref_recorded', livemode: true };
  it.each([
    ['succeeded', { status: 'succeeded', refundId: expect.stringMatching(/^re_/) }],
    ['pending', { status: 'pending', refundId: expect.stringMatching(/^re_/), acquirerStatus: 'pending' }],
    ['requires_action', { status: 'pending', refundId: expect.stringMatching(/^re_/), acquirerStatus: 'requires_action' }],
    ['failed', { status: 'declined', message: 'Refund failed at Stripe: expired_or_canceled_card' }],
    ['canceled', { status: 'declined', message: 'Refund canceled at Stripe' }],
  ])('%s', async (status, outcome) => {
    stripe.answer('POST', /^\/v1\/refunds$/, refundIn(status));
    stripe.answer('GET', /^\/v1\/refunds\//, refundIn(status));
    expect(await connector().refund(refund)).toEqual(outcome);
  });

  it('reads a pending refund again by its id: settled since, it is succeeded', async () => {
    stripe.answer('POST', /^\/v1\/refunds$/, refundIn('pending'));
    stripe.answer('GET', /^\/v1\/refunds\//, refundIn('succeeded'));
    expect(await connector().refund(refund)).toEqual({ status: 'succeeded', refundId: expect.stringMatching(/^re_/) });
  });

  it('finds its own refund by its id in the metadata when a late retry is refused as already refunded', async () => {
    stripe.answer('POST', /^\/v1\/refunds$/, invalidRequest('charge_already_refunded', 'Charge has already been refunded.'));
    stripe.answer('GET', /^\/v1\/refunds$/, ({ mock }) => ({
      status: 200,
      body: { ...mock, data: [{ ...mock.data?.[0], id: 're_ours', object: 'refund', status: 'succeeded', metadata: { refund_id: 'ref_recorded' } }] },
    }));
    expect(await connector().refund(refund)).toEqual({ status: 'succeeded', refundId: 're_ours' });
  });
});

describe('evidence and acceptance (recorded Stripe responses)', () => {
  const dispute = { disputeId: 'dsp_1', acquirerDisputeId: 'du_recorded', livemode: true };
  it('is refused for good when Stripe no longer takes evidence for the dispute', async () => {
    stripe.answer('POST', /^\/v1\/disputes\/[^/]+$/, invalidRequest('resource_missing', 'This dispute is already closed'));
    await expect(connector().submitDisputeEvidence({ ...dispute, evidence: emptyEvidence(), idempotencyKey: 'k' })).rejects.toBeInstanceOf(AcquirerRefusedError);
  });

  it('accepts a dispute Stripe closed already as done, and refuses one Stripe will not close', async () => {
    stripe.answer('POST', /\/close$/, invalidRequest('resource_missing', 'This dispute cannot be closed'));
    stripe.answer('GET', /^\/v1\/disputes\//, disputeIn('won'));
    await connector().acceptDispute(dispute);
    stripe.answer('GET', /^\/v1\/disputes\//, disputeIn('under_review'));
    await expect(connector().acceptDispute(dispute)).rejects.toBeInstanceOf(AcquirerRefusedError);
  });
});

const refusedKey = (status = 401) => () => ({ status, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_live_****abcd' } } });
const account = () => ({ secretKey: 'sk_test_recorded', apiBase: stripe.url });
const silent = createLogger('silent');

describe('a key Stripe refuses (recorded Stripe responses)', () => {
  afterEach(() => keyTaken());

  it.each([401, 403])('is a configuration error (%i), not Stripe unavailable, and /readyz fails until a read succeeds', async (status) => {
    stripe.answer('POST', /\/confirm$/, refusedKey(status));
    const refused = connector().charge(charge);
    await expect(refused).rejects.toBeInstanceOf(AcquirerConfigurationError);
    await expect(refused).rejects.toThrow(/Stripe refused the secret key/);
    const at = Date.now();
    await expect(stripeKeyReadiness(account(), at)).rejects.toThrow(/Invalid API Key/);
    // A minute on, /readyz asks Stripe again (one read), and a key taken again makes it ready.
    await expect(stripeKeyReadiness(account(), at + 61_000)).resolves.toBeUndefined();
    expect(sent()).toContain('GET /v1/balance');
  });

  it('declines a payment whose intent it cannot open, rather than asking again for ever: nothing was opened', async () => {
    stripe.answer('POST', /^\/v1\/payment_intents$/, refusedKey());
    expect(await connector().prepareCharge(charge)).toEqual({ status: 'declined', code: 'processing_error', message: expect.any(String) });
  });

  it('asks again with evidence and an acceptance under a refused key (the merchant keeps the dispute), never a refusal of the evidence', async () => {
    const dispute = { disputeId: 'dsp_1', acquirerDisputeId: 'du_recorded', livemode: true };
    stripe.answer('POST', /^\/v1\/disputes\/[^/]+$/, refusedKey());
    const evidence = connector().submitDisputeEvidence({ ...dispute, evidence: emptyEvidence(), idempotencyKey: 'k' });
    await expect(evidence).rejects.toBeInstanceOf(AcquirerConfigurationError);
    await expect(evidence).rejects.not.toBeInstanceOf(AcquirerRefusedError);
    stripe.answer('POST', /\/close$/, refusedKey());
    await expect(connector().acceptDispute(dispute)).rejects.toBeInstanceOf(AcquirerConfigurationError);
  });
});

describe("the key's check at start", () => {
  it('passes a key Stripe takes, with one read of the balance', async () => {
    await expect(checkStripeKey(account(), silent)).resolves.toBeUndefined();
    expect(sent()).toEqual(['GET /v1/balance']);
  });

  it('stops the start, naming STRIPE_SECRET_KEY, when Stripe refuses the key', async () => {
    stripe.answer('GET', /^\/v1\/balance$/, refusedKey());
    const start = checkStripeKey(account(), silent);
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(start).rejects.toThrow('STRIPE_SECRET_KEY is refused by Stripe (401): Invalid API Key provided: sk_live_****abcd');
  });

  it('only warns when Stripe cannot be reached: its outage is not this deployment misconfigured', async () => {
    await expect(checkStripeKey({ ...account(), apiBase: 'http://127.0.0.1:1' }, silent)).resolves.toBeUndefined();
  });
});

describe("/readyz with ACQUIRER=stripe (recorded Stripe responses)", () => {
  afterEach(() => keyTaken());

  it('has an acquirer check, ok until Stripe refuses the key, then failing and naming it', async () => {
    const env = { ACQUIRER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_recorded', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_PUBLISHABLE_KEY: 'pk_test_recorded', STRIPE_API_BASE: stripe.url, ADMIN_PORT: '0', ADMIN_HOST: '127.0.0.1' };
    const admin = await startOpsPort({ config: loadConfig(env), connections: {}, log: silent, worker: false });
    const readyz = async () => (await (await fetch(`http://127.0.0.1:${admin.port}/readyz`)).json()) as { checks: Record<string, string> };
    try {
      expect((await readyz()).checks.acquirer).toBe('ok');
      stripe.answer('POST', /^\/v1\/refunds$/, refusedKey());
      await expect(connector().refund({ chargeId: 'pi_recorded', amountInCents: 100, idempotencyKey: 'ref_key', livemode: true })).rejects.toBeInstanceOf(AcquirerConfigurationError);
      expect((await readyz()).checks.acquirer).toBe('unreachable');
      // No request to Stripe for each probe while it fails: the next read is a minute away.
      expect(sent().filter((r) => r === 'GET /v1/balance')).toEqual([]);
    } finally {
      await admin.close();
    }
  });
});
