import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import { failCompletedRefund, Refund } from '../refunds/index.js';
import { lateRefundFailureOf } from './stripe-refunds.rules.js';
import type { ReceivedEvent } from './stripe-event.outcome.js';

/**
 * Stripe's word on a refund after the connector stopped asking (it reads a refund only while it is
 * pending): one whose refund failed or was canceled moves a `completed` refund here to `failed`, its money
 * back as a refund failing in flight gives it (`failCompletedRefund`), in the event's transaction. The refund
 * is ours by `metadata.refund_id`, which the connector set when it created it. Any other status, or a refund
 * already failed (a second event of one failure), moves nothing; one still `processing` is left to its
 * workflow, which reads Stripe's status itself.
 */
export async function applyRefundEvent(tx: EntityManager, refund: Stripe.Refund): Promise<ReceivedEvent> {
  const refundId = refund.metadata?.refund_id;
  const ours = refundId ? await tx.findOne(Refund, { id: refundId }) : null;
  if (!ours) {
    const detail = `refund ${refund.id} names ${refundId ? `refund ${refundId}` : 'no refund_id'}, which no refund of this service made`;
    return { outcome: 'unmatched', disputeId: null, detail, outbox: [] };
  }
  const failure = lateRefundFailureOf(refund);
  if (!failure) return { outcome: 'unchanged', disputeId: null, detail: `${refund.id} is ${refund.status} at Stripe; ${ours.id} is ${ours.status}`, outbox: [] };
  const { refund: after, moved } = await failCompletedRefund(tx, ours.id, failure);
  const detail = `${refund.id} is ${refund.status} at Stripe; ${ours.id} is ${after.status}`;
  return { outcome: moved ? 'applied' : 'unchanged', disputeId: null, detail, outbox: [], ...(moved ? { refundFailed: true as const } : {}) };
}
