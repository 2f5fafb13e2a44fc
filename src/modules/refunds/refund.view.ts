import type { Refund } from './refund.entity.js';
import type { RefundResource } from './refund.schemas.js';

/**
 * The spec's refund. `createdAt` and `requestedAt` carry the same value (the spec names the field both
 * ways); `completedAt` and `failureReason` appear when they apply. The workflow's `status` query
 * returns this same record.
 */
export function refundView(r: Refund): RefundResource {
  return {
    id: r.id,
    checkoutSessionId: r.checkoutSessionId,
    amountInCents: r.amountInCents,
    reason: r.reason ?? null,
    status: r.status,
    livemode: r.livemode,
    createdAt: r.createdAt.toISOString(),
    requestedAt: r.createdAt.toISOString(),
    ...(r.completedAt ? { completedAt: r.completedAt.toISOString() } : {}),
    ...(r.failureReason ? { failureReason: r.failureReason } : {}),
  };
}
