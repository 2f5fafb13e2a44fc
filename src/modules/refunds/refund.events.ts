import type { Refund } from './refund.entity.js';

/**
 * `refund.created` has the spec's payload: refundId, sessionId, amount (cents), reason, status, timestamp.
 * `refund.completed` and `refund.failed` (not shown by the spec) follow the same shape, the first with
 * the processor's refund id, the second with the failure reason.
 */
const base = (r: Refund) => ({
  refundId: r.id,
  sessionId: r.checkoutSessionId,
  amount: r.amountInCents,
  reason: r.reason ?? null,
  status: r.status,
});

export function refundCreatedPayload(r: Refund, at: Date) {
  return { ...base(r), timestamp: at.toISOString() };
}

export function refundCompletedPayload(r: Refund, at: Date) {
  return { ...base(r), processorRefundId: r.processorRefundId, timestamp: at.toISOString() };
}

export function refundFailedPayload(r: Refund, at: Date) {
  return { ...base(r), failureReason: r.failureReason, timestamp: at.toISOString() };
}
