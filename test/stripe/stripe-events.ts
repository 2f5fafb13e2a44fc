/**
 * Stripe's dispute events as Stripe sends them: the envelope and the dispute are stripe-mock's own
 * fixtures (an event, a dispute), given the state the test needs and the PaymentIntent of a payment the
 * stack made, and each is signed with the `stripe` library's test-header helper, as Stripe signs a delivery.
 */
import Stripe from 'stripe';
import { STRIPE_API_VERSION } from '../../src/modules/stripe/stripe.client.js';
import { stripeMockUrl } from '../support/stripe-mock.js';

export const WEBHOOK_SECRET = 'whsec_test_payments_service';

const fromMock = async (path: string) => {
  const res = await fetch(`${stripeMockUrl()}${path}`, { headers: { Authorization: 'Bearer sk_test_events', 'Stripe-Version': STRIPE_API_VERSION } });
  if (!res.ok) throw new Error(`stripe-mock ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
};

let sequence = 0;
/**
 * The evidence deadline every event carries unless the test gives one: one instant for the whole file,
 * so two events of one dispute built a second apart do not tell it of a moved deadline by accident.
 */
const DEFAULT_DUE_BY = new Date(Date.now() + 7 * 86_400_000);

/** A `charge.dispute.*` event for the dispute `disputeId` of the intent `paymentIntent`, in `status`. */
export async function disputeEvent(
  type: `charge.dispute.${'created' | 'updated' | 'closed' | 'funds_withdrawn' | 'funds_reinstated'}`,
  dispute: { id: string; paymentIntent: string | null; status: string; amount: number; reason?: string; dueBy?: Date },
  eventId = `evt_test_${Date.now()}_${++sequence}`,
): Promise<Stripe.Event> {
  const envelope = await fromMock(`/v1/events/${eventId}`);
  const fixture = await fromMock(`/v1/disputes/${dispute.id}`);
  const object = {
    ...fixture,
    id: dispute.id,
    payment_intent: dispute.paymentIntent,
    status: dispute.status,
    amount: dispute.amount,
    reason: dispute.reason ?? 'fraudulent',
    evidence_details: { ...fixture.evidence_details, due_by: Math.floor((dispute.dueBy ?? DEFAULT_DUE_BY).getTime() / 1000) },
  };
  return { ...envelope, id: eventId, type, api_version: STRIPE_API_VERSION, created: Math.floor(Date.now() / 1000), data: { object } } as unknown as Stripe.Event;
}

/** A refund event (`refund.failed`, `charge.refund.updated`) for Stripe's refund `id` of this service's refund `refundId`, in `status`. */
export async function refundEvent(
  type: 'refund.failed' | 'charge.refund.updated',
  refund: { id: string; refundId: string | null; status: string; failureReason?: string | null },
  eventId = `evt_test_${Date.now()}_${++sequence}`,
): Promise<Stripe.Event> {
  const envelope = await fromMock(`/v1/events/${eventId}`);
  const fixture = await fromMock(`/v1/refunds/${refund.id}`);
  const object = { ...fixture, id: refund.id, status: refund.status, failure_reason: refund.failureReason ?? null, metadata: refund.refundId ? { refund_id: refund.refundId } : {} };
  return { ...envelope, id: eventId, type, api_version: STRIPE_API_VERSION, created: Math.floor(Date.now() / 1000), data: { object } } as unknown as Stripe.Event;
}

/** The body as text and its `Stripe-Signature`, signed with `secret` at `timestamp` (seconds; now by default). */
export function signed(event: unknown, secret = WEBHOOK_SECRET, timestamp?: number): { body: string; signature: string } {
  const body = JSON.stringify(event);
  const signature = new Stripe('sk_test_signing').webhooks.generateTestHeaderString({ payload: body, secret, ...(timestamp ? { timestamp } : {}) });
  return { body, signature };
}

/** A `payment_intent.*` event for the intent `id` in `status` (stripe-mock's fixture, given the state). */
export async function intentEvent(
  type: 'payment_intent.succeeded' | 'payment_intent.payment_failed',
  intent: { id: string; status: string; amount: number },
  eventId = `evt_test_${Date.now()}_${++sequence}`,
): Promise<Stripe.Event> {
  const envelope = await fromMock(`/v1/events/${eventId}`);
  const fixture = await fromMock(`/v1/payment_intents/${intent.id}`);
  const object = { ...fixture, id: intent.id, status: intent.status, amount: intent.amount };
  return { ...envelope, id: eventId, type, livemode: true, api_version: STRIPE_API_VERSION, created: Math.floor(Date.now() / 1000), data: { object } } as unknown as Stripe.Event;
}
