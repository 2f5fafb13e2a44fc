import type Stripe from 'stripe';
import type { DisputeReason } from '../../../contracts/disputes.js';
import type { AcquirerStage } from '../disputes/index.js';

/** The dispute events the acquirer endpoint takes (docs/acquirer.md: the events to select at Stripe). */
export const STRIPE_DISPUTE_EVENTS = [
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
] as const;
export type StripeDisputeEvent = (typeof STRIPE_DISPUTE_EVENTS)[number];
export const isStripeDisputeEvent = (type: string): type is StripeDisputeEvent => (STRIPE_DISPUTE_EVENTS as readonly string[]).includes(type);

/**
 * Stripe's dispute reasons in the service's (contracts/disputes.ts), which are Stripe's names already
 * where they exist; Stripe's others read as `general`, except `unrecognized` (the cardholder does not
 * recognise the charge), which networks treat as fraud.
 */
const REASONS: Record<string, DisputeReason> = {
  fraudulent: 'fraudulent',
  unrecognized: 'fraudulent',
  product_not_received: 'product_not_received',
  product_unacceptable: 'product_unacceptable',
  duplicate: 'duplicate',
  credit_not_processed: 'credit_not_processed',
  subscription_canceled: 'subscription_canceled',
};
export const reasonOf = (reason: string): DisputeReason => REASONS[reason] ?? 'general';

/** Stripe's status, as where the dispute stands (an appeal reopens a lost one at Stripe; here a closed dispute stays closed). */
const STAGES: Record<string, AcquirerStage> = {
  warning_needs_response: 'inquiry',
  warning_under_review: 'inquiry',
  warning_closed: 'inquiry_closed',
  needs_response: 'chargeback',
  under_review: 'chargeback',
  prevented: 'inquiry_closed',
  won: 'won',
  lost: 'lost',
  appeal_needs_response: 'chargeback',
  appeal_under_review: 'chargeback',
};
const ORDER: AcquirerStage[] = ['inquiry', 'chargeback', 'inquiry_closed', 'won', 'lost'];

/**
 * Where the event puts the dispute: its status, or further when the event itself says more (funds
 * withdrawn: a chargeback, whatever an inquiry's status still read; funds reinstated: won).
 */
export function stageOf(type: StripeDisputeEvent, status: string): AcquirerStage {
  const byStatus = STAGES[status] ?? 'inquiry';
  const byEvent: AcquirerStage | null = type === 'charge.dispute.funds_withdrawn' ? 'chargeback' : type === 'charge.dispute.funds_reinstated' ? 'won' : null;
  if (!byEvent || ['inquiry_closed', 'won', 'lost'].includes(byStatus)) return byStatus;
  return ORDER.indexOf(byEvent) > ORDER.indexOf(byStatus) ? byEvent : byStatus;
}

/** The charge a dispute names: its PaymentIntent (the connector's charge id, recorded as the charge's reference). */
export function paymentIntentOf(dispute: Pick<Stripe.Dispute, 'payment_intent'>): string | null {
  const intent = dispute.payment_intent;
  return typeof intent === 'string' ? intent : (intent?.id ?? null);
}
