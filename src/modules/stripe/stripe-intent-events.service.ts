import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import { paymentIntentChangedMessage, sessionOfChargeReference } from '../checkout/index.js';
import { claimForFastPath, OutboxEntry } from '../outbox/index.js';
import type { ReceivedEvent } from './stripe-event.outcome.js';

/** The PaymentIntent events that end a payment the customer confirmed in the browser. */
const INTENT_EVENTS = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed']);
export const isStripeIntentEvent = (type: string) => INTENT_EVENTS.has(type);

/**
 * Stripe's word that a session's PaymentIntent succeeded or failed, for a payment the customer confirmed in
 * the browser (Stripe.js). The event is not taken as the outcome: it hands the news to the session's checkout
 * workflow, which reads the intent at Stripe and completes or fails the session in its own transaction
 * (ledger posting and event included), as the card flow does. So an event out of order, or repeated, or a
 * return from 3-D Secure that got there first, can only make it read again. Through the outbox, in the
 * event's transaction: the news outlives this process.
 */
export async function applyIntentEvent(tx: EntityManager, intent: Pick<Stripe.PaymentIntent, 'id' | 'status'>, at: Date): Promise<ReceivedEvent> {
  const sessionId = await sessionOfChargeReference(tx, intent.id);
  if (!sessionId) return { outcome: 'unmatched', disputeId: null, detail: `PaymentIntent ${intent.id}, which no payment of this service opened`, outbox: [] };
  const outbox = [claimForFastPath(tx.create(OutboxEntry, { createdAt: at, message: paymentIntentChangedMessage(sessionId) }))];
  return { outcome: 'applied', disputeId: null, detail: `PaymentIntent ${intent.id} is ${intent.status} at Stripe; session ${sessionId}'s checkout workflow reads it`, outbox };
}
