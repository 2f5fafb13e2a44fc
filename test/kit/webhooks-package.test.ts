import {
  constructEvent,
  WebhookHeaderError,
  WebhookPayloadError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookVerificationError,
  type WebhookEvent,
} from '@payments/webhooks';
import Stripe from 'stripe';
import { deliveryBody } from '../../src/modules/webhooks/delivery.view.js';
import { signatureHeader } from '../../src/modules/webhooks/signature.crypto.js';

// Vectors computed outside this code base, with
//   printf '%s' "$t.$body" | openssl dgst -sha256 -hmac "$secret"
const SECRET = 'whsec_5f1d3c0a9e8b7d6c5b4a39281706f5e4';
const PREVIOUS = 'whsec_previous';
const T = 1700000000;
const BODY = '{"id":"evt_test","eventType":"checkout.succeeded","payload":{"amount":1234}}';
const OPENSSL_HEX = '8a74ec6967f31476bff29a39c8e07fcf185762e7aa8b600e1a28976559a4c454';
const header = `t=${T},v1=${OPENSSL_HEX}`;

/** A real delivery body, made by the service's own code for a `checkout.succeeded`. */
const event = deliveryBody({
  id: 'evt_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e',
  type: 'checkout.succeeded',
  createdAt: new Date('2026-11-24T05:00:00Z'),
  sequence: 41,
  livemode: false,
  payload: { sessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', amount: 4658, amountInDecimals: '46.58', currency: 'USD' },
});
const now = () => Math.floor(Date.now() / 1000);
const stripe = new Stripe('sk_test_unused');

const thrown = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error as WebhookVerificationError;
  }
  throw new Error('did not throw');
};

describe('@payments/webhooks constructEvent', () => {
  it('returns the typed event for the openssl vector, from a string or bytes, within the tolerance', () => {
    const parsed = constructEvent(BODY, header, SECRET, { nowSeconds: T + 300 });
    expect(parsed).toEqual(JSON.parse(BODY));
    expect(constructEvent(new TextEncoder().encode(BODY), header, SECRET, { nowSeconds: T - 300 })).toEqual(JSON.parse(BODY));
  });

  it('narrows the event by its type', () => {
    const parsed: WebhookEvent = constructEvent(event, signatureHeader([SECRET], now(), event), SECRET);
    if (parsed.type !== 'checkout.succeeded') throw new Error('expected checkout.succeeded');
    // Typed from the document: amount is cents, sessionId the session's id.
    const amount: number = parsed.payload.amount;
    expect([parsed.eventId, parsed.payload.sessionId, amount]).toEqual(['evt_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e', '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', 4658]);
  });

  it('narrows a dispute event to its payload: the dispute, its session, status, reason, amount and deadline', () => {
    const body = deliveryBody({
      id: 'evt_0190f4c2a7e07b3c9d1e2f3a4b5c6d7f',
      type: 'dispute.closed',
      createdAt: new Date('2026-11-24T05:00:00Z'),
      sequence: 42,
      livemode: false,
      payload: {
        disputeId: 'dsp_0190f4c2a7e07b3c9d1e2f3a4b5c6d90',
        checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e',
        status: 'won',
        reason: 'fraudulent',
        amountInCents: 4658,
        evidenceDueBy: '2026-12-01T05:00:00.000Z',
      },
    });
    const parsed: WebhookEvent = constructEvent(body, signatureHeader([SECRET], now(), body), SECRET);
    if (parsed.type !== 'dispute.closed') throw new Error('expected dispute.closed');
    // Typed from the document: the status one of the dispute statuses, the amount cents.
    const status: 'won' | 'lost' | 'warning_closed' | 'needs_response' | 'under_review' | 'warning_needs_response' | 'warning_under_review' = parsed.payload.status;
    const amount: number = parsed.payload.amountInCents;
    expect([parsed.payload.disputeId, status, amount]).toEqual(['dsp_0190f4c2a7e07b3c9d1e2f3a4b5c6d90', 'won', 4658]);
  });

  it('throws WebhookTimestampError more than toleranceSeconds away, either way', () => {
    const late = thrown(() => constructEvent(BODY, header, SECRET, { nowSeconds: T + 301 }));
    expect(late).toBeInstanceOf(WebhookTimestampError);
    expect([late.code, late.message]).toEqual(['timestamp_outside_tolerance', `Timestamp ${T} is more than 300 s from now`]);
    expect(thrown(() => constructEvent(BODY, header, SECRET, { nowSeconds: T - 301 }))).toBeInstanceOf(WebhookTimestampError);
    expect(constructEvent(BODY, header, SECRET, { nowSeconds: T + 1000, toleranceSeconds: 1000 })).toBeDefined();
  });

  it('throws WebhookSignatureError for a changed body or another secret', () => {
    const changed = thrown(() => constructEvent(BODY.replace('1234', '1235'), header, SECRET, { nowSeconds: T }));
    expect(changed).toBeInstanceOf(WebhookSignatureError);
    expect([changed.code, changed.message]).toEqual(['bad_signature', 'No v1 signature matches this secret and the raw body']);
    expect(thrown(() => constructEvent(BODY, header, PREVIOUS, { nowSeconds: T }))).toBeInstanceOf(WebhookSignatureError);
  });

  it.each([
    [undefined, 'No X-Webhook-Signature header'],
    ['', 'No X-Webhook-Signature header'],
    [`v1=${OPENSSL_HEX}`, 'X-Webhook-Signature has no t=<unix seconds>'],
    [`t=soon,v1=${OPENSSL_HEX}`, 'X-Webhook-Signature has no t=<unix seconds>'],
    [`t=${T}`, 'X-Webhook-Signature has no v1=<64 hex digits> signature'],
    [`t=${T},v1=abc`, 'X-Webhook-Signature has no v1=<64 hex digits> signature'],
    [`t=${T},v0=${OPENSSL_HEX}`, 'X-Webhook-Signature has no v1=<64 hex digits> signature'],
  ])('throws WebhookHeaderError for the header %p', (value, message) => {
    const error = thrown(() => constructEvent(BODY, value, SECRET, { nowSeconds: T }));
    expect(error).toBeInstanceOf(WebhookHeaderError);
    expect([error.code, error.message]).toEqual(['malformed_header', message]);
  });

  it('accepts a match on any of several v1 signatures (secret rotation), and none for a third secret', () => {
    const rotated = signatureHeader([SECRET, PREVIOUS], T, BODY);
    expect(rotated.split(',v1=')).toHaveLength(3);
    expect(constructEvent(BODY, rotated, SECRET, { nowSeconds: T })).toBeDefined();
    expect(constructEvent(BODY, rotated, PREVIOUS, { nowSeconds: T })).toBeDefined();
    expect(thrown(() => constructEvent(BODY, rotated, 'whsec_other', { nowSeconds: T }))).toBeInstanceOf(WebhookSignatureError);
  });

  it('throws WebhookPayloadError for a correctly signed body that is no event', () => {
    const error = thrown(() => constructEvent('not json', signatureHeader([SECRET], T, 'not json'), SECRET, { nowSeconds: T }));
    expect(error).toBeInstanceOf(WebhookPayloadError);
    expect([error.code, error.message]).toEqual(['malformed_payload', 'The signed body is not JSON']);
    const list = thrown(() => constructEvent('[1]', signatureHeader([SECRET], T, '[1]'), SECRET, { nowSeconds: T }));
    expect([list.code, list.message]).toEqual(['malformed_payload', 'The signed body is not a JSON object']);
  });

  it('uses the current time and 300 s by default', () => {
    expect(constructEvent(BODY, signatureHeader([SECRET], now(), BODY), SECRET)).toBeDefined();
    expect(thrown(() => constructEvent(BODY, signatureHeader([SECRET], now() - 400, BODY), SECRET))).toBeInstanceOf(WebhookTimestampError);
  });
});

describe('cross-checked with Stripe’s official verifier, both ways', () => {
  it('Stripe’s verifier accepts what the service signs (its signing code, one and two secrets)', () => {
    expect(stripe.webhooks.constructEvent(event, signatureHeader([SECRET], now(), event), SECRET, 300).id).toBe('evt_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e');
    const rotated = signatureHeader([SECRET, PREVIOUS], now(), event);
    expect(() => stripe.webhooks.constructEvent(event, rotated, PREVIOUS, 300)).not.toThrow();
    expect(() => stripe.webhooks.constructEvent(event, rotated, 'whsec_other', 300)).toThrow();
  });

  it('this verifier accepts what Stripe’s test helper signs, and refuses what it signs with another secret or too long ago', () => {
    const signed = stripe.webhooks.generateTestHeaderString({ payload: event, secret: SECRET });
    expect(constructEvent(event, signed, SECRET).id).toBe('evt_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e');
    const other = stripe.webhooks.generateTestHeaderString({ payload: event, secret: 'whsec_other' });
    expect(thrown(() => constructEvent(event, other, SECRET))).toBeInstanceOf(WebhookSignatureError);
    const old = stripe.webhooks.generateTestHeaderString({ payload: event, secret: SECRET, timestamp: now() - 301 });
    expect(thrown(() => constructEvent(event, old, SECRET))).toBeInstanceOf(WebhookTimestampError);
  });

  it('each side refuses the other’s output once the body changes', () => {
    const signed = stripe.webhooks.generateTestHeaderString({ payload: event, secret: SECRET });
    expect(thrown(() => constructEvent(`${event} `, signed, SECRET))).toBeInstanceOf(WebhookSignatureError);
    expect(() => stripe.webhooks.constructEvent(`${event} `, signatureHeader([SECRET], now(), event), SECRET, 300)).toThrow();
  });
});
