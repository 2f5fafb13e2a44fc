import type Stripe from 'stripe';
import type { RefundOutcome } from '../processor/index.js';

/**
 * Stripe's refund statuses in the port's outcomes, and so in the spec's refund statuses (docs/acquirer.md
 * has the table): a refund stays `processing` while Stripe has it `pending` or `requires_action` (asked
 * again, with backoff, by the refund's workflow), `completed` once `succeeded`, `failed` when Stripe says
 * `failed` or `canceled` (its money returns to the balances it came from).
 */
export function refundOutcomeOf(refund: Pick<Stripe.Refund, 'id' | 'status' | 'failure_reason'>): RefundOutcome {
  switch (refund.status) {
    case 'succeeded':
      return { status: 'succeeded', refundId: refund.id };
    case 'failed':
      return { status: 'declined', message: `Refund failed at Stripe${refund.failure_reason ? `: ${refund.failure_reason}` : ''}` };
    case 'canceled':
      return { status: 'declined', message: 'Refund canceled at Stripe' };
    default:
      // `pending`, `requires_action`, and any status Stripe adds later: not settled, so asked again.
      return { status: 'pending', refundId: refund.id, acquirerStatus: refund.status ?? 'unknown' };
  }
}

/**
 * The refund events the acquirer endpoint takes (docs/acquirer.md: the events to select at Stripe): a
 * refund Stripe had `succeeded` can fail later (the card closed, the bank returned it), and Stripe says so
 * only by these; the connector reads a refund only while it is pending.
 */
export const STRIPE_REFUND_EVENTS = ['charge.refund.updated', 'refund.failed'] as const;
export type StripeRefundEvent = (typeof STRIPE_REFUND_EVENTS)[number];
export const isStripeRefundEvent = (type: string): type is StripeRefundEvent => (STRIPE_REFUND_EVENTS as readonly string[]).includes(type);

/** The failure reason a refund Stripe now calls failed or canceled gives ours; null while it stands. */
export function lateRefundFailureOf(refund: Pick<Stripe.Refund, 'id' | 'status' | 'failure_reason'>): string | null {
  const outcome = refundOutcomeOf(refund);
  return outcome.status === 'declined' ? outcome.message : null;
}
