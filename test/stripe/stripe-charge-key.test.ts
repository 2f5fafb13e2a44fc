/**
 * How `not_found` stays final with Stripe (docs/decisions.md, Payments): the PaymentIntent is created, its
 * id recorded under the session's key (`charge_references`), and only then confirmed; a lookup closes
 * the key first, then cancels an intent never confirmed. Each branch, through the payment activities on
 * the real database, with Stripe's answers recorded where the stateless mock cannot give them (recorded
 * Stripe responses: test/stripe/recorded.ts); every request still reaches stripe-mock, which must accept it.
 */
import { jest } from '@jest/globals';
import { createPaymentActivities } from '../../activities/checkout-payment.js';
import { closeChargeKey, recordChargeReference } from '../../src/modules/checkout/index.js';
import { createStripeClient, createStripeProcessor } from '../../src/modules/stripe/index.js';
import { byMode, simulatorProcessor, DECLINE_MESSAGES } from '../../src/modules/processor/index.js';
import { createSession, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { recordedStripe, type RecordedStripe } from '../support/stripe-mock.js';
import { intentIn, invalidRequest } from './recorded.js';

jest.setTimeout(60_000);

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);
let stripe: RecordedStripe;
let activities: ReturnType<typeof createPaymentActivities>;
beforeAll(async () => {
  stripe = await recordedStripe();
  const connector = createStripeProcessor(createStripeClient({ secretKey: 'sk_test_keys', apiBase: stripe.url }), { noRailMessage: '' });
  activities = createPaymentActivities({ orm: stack.orm, processor: byMode(simulatorProcessor, connector), disputes: stack.config.disputes });
});
afterAll(async () => stripe?.close());
afterEach(() => {
  expect(stripe.requests.filter((r) => r.mockStatus !== 200)).toEqual([]);
  stripe.reset();
});

const sent = () => stripe.requests.map((r) => `${r.method} ${r.path.replace(/pi_[A-Za-z0-9]+/, ':id')}`);
const reference = async (sessionId: string) => (await sql(stack, 'select reference, closed_at from charge_references where session_id = ?', [sessionId]))[0];
const REFUSED = { status: 'declined', code: 'processing_error', message: DECLINE_MESSAGES.processing_error };

/** A live session moved to `processing` by its pay's first step, as the checkout workflow does. */
async function processing(): Promise<string> {
  const session = await createSession(stack, biz.liveKey);
  expect(await activities.beginPayment(session.id, { customerName: 'Ada', cardBrand: 'visa', cardLast4: '4242' }, `attempt-${session.id}`)).toMatchObject({ started: true });
  return session.id;
}

describe("a live charge's key (recorded Stripe responses)", () => {
  it('records the intent before confirming it: created, recorded, confirmed', async () => {
    stripe.answer('POST', /\/confirm$/, intentIn('succeeded'));
    const sessionId = await processing();
    const outcome = await activities.chargeCard(sessionId, 'pm_card_visa');
    const { reference: pi } = await reference(sessionId);
    expect(outcome).toEqual({ status: 'succeeded', chargeId: pi });
    expect(sent()).toEqual(['POST /v1/payment_intents', 'POST /v1/payment_intents/:id/confirm']);
  });

  it('closed by a lookup before an intent was recorded: not_found, and a charge arriving later is refused and never confirmed', async () => {
    const sessionId = await processing();
    expect(await activities.lookUpCharge(sessionId)).toEqual({ status: 'not_found' });
    expect(await reference(sessionId)).toEqual({ reference: null, closed_at: expect.anything() });
    expect(await activities.chargeCard(sessionId, 'pm_card_visa')).toEqual(REFUSED);
    // The intent it opened was never confirmed, so it cannot move money.
    expect(sent()).toEqual(['POST /v1/payment_intents']);
  });

  it('recorded, its confirmation lost: the lookup cancels the unconfirmed intent, answers not_found, and the late confirmation is refused', async () => {
    const sessionId = await processing();
    stripe.answer('POST', /\/confirm$/, () => ({ status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } }));
    await expect(activities.chargeCard(sessionId, 'pm_card_visa')).rejects.toThrow(/Stripe: StripeAPIError/);
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('requires_confirmation'));
    stripe.answer('POST', /\/cancel$/, intentIn('canceled'));
    expect(await activities.lookUpCharge(sessionId)).toEqual({ status: 'not_found' });
    expect(sent().slice(-2)).toEqual(['GET /v1/payment_intents/:id', 'POST /v1/payment_intents/:id/cancel']);
    stripe.answer('POST', /\/confirm$/, invalidRequest('payment_intent_unexpected_state', 'This PaymentIntent was canceled.'));
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('canceled'));
    expect(await activities.chargeCard(sessionId, 'pm_card_visa')).toEqual(REFUSED);
  });

  it('a payment in doubt with its intent confirmed is settled as completed, the intent its charge', async () => {
    const sessionId = await processing();
    const pi = await recordIntent(sessionId);
    stripe.answer('GET', /^\/v1\/payment_intents\//, intentIn('succeeded'));
    expect(await activities.settlePayment(sessionId)).toEqual({ status: 'completed', chargeId: pi, reason: 'charge found' });
    expect((await sql(stack, 'select processor_charge_id from checkout_sessions where id = ?', [sessionId]))[0].processor_charge_id).toBe(pi);
  });

  it('a record and a close raced: exactly one wins, and the lookup asks about whatever was recorded', async () => {
    for (let i = 0; i < 10; i++) {
      const sessionId = await processing();
      const [recorded, closed] = await Promise.all([recordChargeReference(stack.orm.em.fork(), sessionId, `pi_race${i}`), closeChargeKey(stack.orm.em.fork(), sessionId)]);
      if ('closed' in recorded) expect(closed).toBeNull();
      else expect(closed).toBe(`pi_race${i}`);
    }
  });
});

/** The first half of a charge alone: its intent opened at Stripe and recorded, as a charge does before confirming. */
async function recordIntent(sessionId: string): Promise<string> {
  const intent = await fetch(`${stripe.url}/v1/payment_intents`, {
    method: 'POST',
    headers: { Authorization: 'Bearer sk_test_keys', 'Content-Type': 'application/x-www-form-urlencoded', 'Stripe-Version': '2026-08-26.dahlia' },
    body: new URLSearchParams({ amount: '4658', currency: 'usd' }),
  }).then((res) => res.json() as Promise<{ id: string }>);
  const recorded = await recordChargeReference(stack.orm.em.fork(), sessionId, intent.id);
  if ('closed' in recorded) throw new Error('closed');
  return recorded.reference;
}
