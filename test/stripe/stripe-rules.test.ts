/** The Stripe connector's pure mappings: evidence fields, dispute reasons and stages, decline codes. */
import { emptyEvidence } from '../../src/modules/disputes/dispute.rules.js';
import { EVIDENCE_FIELDS } from '../../src/modules/disputes/dispute.entity.js';
import { COMMUNICATION_HEADING, stripeEvidence, stripeEvidenceProblems } from '../../src/modules/stripe/stripe-evidence.rules.js';
import { reasonOf, stageOf, STRIPE_DISPUTE_EVENTS } from '../../src/modules/stripe/stripe-disputes.rules.js';
import { declineOf, readIntent } from '../../src/modules/stripe/stripe-charges.rules.js';
import { headerProblemOf, signedTimestampOf, timestampProblemOf } from '../../src/modules/stripe/stripe-signature.rules.js';

describe('evidence, as Stripe takes it', () => {
  it('maps each of the ten fields: seven to text fields, the policies to their disclosures, the communication into the uncategorized text', () => {
    const evidence = Object.fromEntries(EVIDENCE_FIELDS.map((field) => [field, `${field} text`]));
    expect(stripeEvidence(evidence)).toEqual({
      product_description: 'productDescription text',
      customer_name: 'customerName text',
      customer_email_address: 'customerEmail text',
      shipping_carrier: 'shippingCarrier text',
      shipping_tracking_number: 'shippingTrackingNumber text',
      shipping_date: 'shippingDate text',
      refund_policy_disclosure: 'refundPolicy text',
      cancellation_policy_disclosure: 'cancellationPolicy text',
      uncategorized_text: `uncategorizedText text\n\n${COMMUNICATION_HEADING}\ncustomerCommunication text`,
    });
  });

  it('sends no field the merchant left empty, and never a file field', () => {
    expect(stripeEvidence({ ...emptyEvidence(), customerName: 'Ada' })).toEqual({ customer_name: 'Ada' });
    expect(stripeEvidence({ ...emptyEvidence(), customerCommunication: 'Thanks!' })).toEqual({ uncategorized_text: `${COMMUNICATION_HEADING}\nThanks!` });
  });

  it("finds nothing Stripe would refuse in evidence at its limits, and every field past its own, by the API's field", () => {
    const at = { ...emptyEvidence(), productDescription: 'x'.repeat(20_000), customerName: 'x'.repeat(5_000), customerEmail: 'x'.repeat(5_000),
      shippingCarrier: 'x'.repeat(5_000), shippingTrackingNumber: 'x'.repeat(5_000), shippingDate: 'x'.repeat(5_000),
      refundPolicy: 'x'.repeat(20_000), cancellationPolicy: 'x'.repeat(20_000), uncategorizedText: 'x'.repeat(20_000) };
    expect(stripeEvidenceProblems(at)).toEqual([]);
    const over = Object.fromEntries(Object.entries(at).map(([field, text]) => [field, text ? `${text}x` : null]));
    expect(stripeEvidenceProblems(over)).toEqual([
      { path: ['productDescription'], message: 'productDescription must be at most 20000 characters for a dispute at Stripe' },
      { path: ['customerName'], message: 'customerName must be at most 5000 characters for a dispute at Stripe' },
      { path: ['customerEmail'], message: 'customerEmail must be at most 5000 characters for a dispute at Stripe' },
      { path: ['shippingCarrier'], message: 'shippingCarrier must be at most 5000 characters for a dispute at Stripe' },
      { path: ['shippingTrackingNumber'], message: 'shippingTrackingNumber must be at most 5000 characters for a dispute at Stripe' },
      { path: ['shippingDate'], message: 'shippingDate must be at most 5000 characters for a dispute at Stripe' },
      { path: ['refundPolicy'], message: 'refundPolicy must be at most 20000 characters for a dispute at Stripe' },
      { path: ['cancellationPolicy'], message: 'cancellationPolicy must be at most 20000 characters for a dispute at Stripe' },
      { path: ['uncategorizedText'], message: 'uncategorizedText must be at most 20000 characters for a dispute at Stripe' },
    ]);
  });

  it('holds the uncategorized text and the customer communication to one limit together: Stripe takes them as one field', () => {
    const heading = COMMUNICATION_HEADING.length + 1 + 2;
    const fits = { ...emptyEvidence(), uncategorizedText: 'x'.repeat(10_000), customerCommunication: 'y'.repeat(10_000 - heading) };
    expect(stripeEvidence(fits).uncategorized_text).toHaveLength(20_000);
    expect(stripeEvidenceProblems(fits)).toEqual([]);
    const message = `uncategorizedText and customerCommunication together must be at most 20000 characters for a dispute at Stripe, which takes them as one field (20001 with its heading)`;
    expect(stripeEvidenceProblems({ ...fits, customerCommunication: `${fits.customerCommunication}y` })).toEqual([
      { path: ['uncategorizedText'], message },
      { path: ['customerCommunication'], message },
    ]);
    expect(stripeEvidenceProblems({ ...emptyEvidence(), customerCommunication: 'y'.repeat(20_000 - COMMUNICATION_HEADING.length - 1) })).toEqual([]);
    expect(stripeEvidenceProblems({ ...emptyEvidence(), customerCommunication: 'y'.repeat(20_000 - COMMUNICATION_HEADING.length) })).toEqual([
      { path: ['customerCommunication'], message: `customerCommunication must be at most ${20_000 - COMMUNICATION_HEADING.length - 1} characters for a dispute at Stripe` },
    ]);
  });
});

describe("Stripe's disputes in this service's words", () => {
  it.each([
    ['fraudulent', 'fraudulent'],
    ['unrecognized', 'fraudulent'],
    ['product_not_received', 'product_not_received'],
    ['credit_not_processed', 'credit_not_processed'],
    ['bank_cannot_process', 'general'],
    ['a_reason_stripe_adds_later', 'general'],
  ])('reason %s → %s', (stripe, ours) => expect(reasonOf(stripe)).toBe(ours));

  it.each([
    ['charge.dispute.created', 'warning_needs_response', 'inquiry'],
    ['charge.dispute.created', 'needs_response', 'chargeback'],
    ['charge.dispute.updated', 'warning_under_review', 'inquiry'],
    ['charge.dispute.funds_withdrawn', 'warning_needs_response', 'chargeback'],
    ['charge.dispute.funds_reinstated', 'under_review', 'won'],
    ['charge.dispute.closed', 'won', 'won'],
    ['charge.dispute.closed', 'lost', 'lost'],
    ['charge.dispute.closed', 'warning_closed', 'inquiry_closed'],
    ['charge.dispute.funds_withdrawn', 'lost', 'lost'],
  ] as const)('%s with status %s stands at %s', (type, status, stage) => expect(stageOf(type, status)).toBe(stage));

  it('takes exactly the five dispute events', () => {
    expect(STRIPE_DISPUTE_EVENTS).toEqual(['charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.closed', 'charge.dispute.funds_withdrawn', 'charge.dispute.funds_reinstated']);
  });
});

describe('declines and intents', () => {
  it.each([
    [{ code: 'card_declined', decline_code: 'insufficient_funds' }, 'insufficient_funds'],
    [{ code: 'expired_card' }, 'expired_card'],
    [{ code: 'card_declined', decline_code: 'stolen_card' }, 'card_declined'],
    [{ code: 'processing_error' }, 'processing_error'],
    [null, 'card_declined'],
  ])('%j → %s', (error, code) => expect(declineOf(error).code).toBe(code));

  it("reads every intent status, and asks for a cancel before answering wherever the intent could still be confirmed", () => {
    const read = (status: string, last_payment_error: unknown = null) => readIntent({ id: 'pi_1', status, last_payment_error } as never);
    expect(read('succeeded')).toEqual({ settled: { status: 'succeeded', chargeId: 'pi_1' }, cancelFirst: false });
    expect(read('requires_confirmation')).toEqual({ settled: { status: 'not_found' }, cancelFirst: true });
    expect(read('requires_payment_method')).toEqual({ settled: { status: 'not_found' }, cancelFirst: true });
    expect(read('requires_payment_method', { code: 'card_declined' })).toMatchObject({ settled: { status: 'declined', code: 'card_declined' }, cancelFirst: true });
    expect(read('requires_action')).toMatchObject({ settled: { status: 'declined' }, cancelFirst: true });
    expect(read('canceled')).toEqual({ settled: { status: 'not_found' }, cancelFirst: false });
    expect(read('processing')).toEqual({ settled: null, reason: 'PaymentIntent pi_1 is processing' });
  });
});

describe("a delivery's signature and time", () => {
  it.each([
    [1000 - 301, 'timestamp_too_old'],
    [1000 - 300, null],
    [1000, null],
    [1000 + 300, null],
    [1000 + 301, 'timestamp_in_future'],
    [1000 + 86_400, 'timestamp_in_future'],
  ])('a signed time of %i at 1000 is %s: 300 s either way', (signedAt, problem) => expect(timestampProblemOf(signedAt, 1000)).toBe(problem));

  it('reads the signed time as the library does (the last t= wins), and names what a header lacks', () => {
    expect(signedTimestampOf('t=5,v1=a,t=7')).toBe(7);
    expect(signedTimestampOf('v1=a')).toBeNull();
    expect(headerProblemOf('')).toBe('no_signature');
    expect(headerProblemOf('t=1')).toBe('malformed_signature');
    expect(headerProblemOf('t=x,v1=a')).toBe('malformed_signature');
    expect(headerProblemOf('v1=a')).toBe('malformed_signature');
    expect(headerProblemOf('t=1,v1=a')).toBeNull();
  });
});
