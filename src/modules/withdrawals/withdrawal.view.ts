import type { z } from 'zod';
import type { Withdrawal } from './withdrawal.entity.js';
import type {
  cancelledWithdrawalResource,
  createdWithdrawalResource,
  WithdrawalResource,
  withdrawalListItemResource,
} from './withdrawal.schemas.js';

/**
 * The spec's shapes of a withdrawal. The single read carries the reference or failure reason only when
 * it applies; the workflow's `status` query returns the same record.
 */
/** What every shape of a withdrawal starts with, in the spec's order. */
const withdrawalSummary = (w: Withdrawal) => ({ id: w.id, amountInCents: w.amountInCents, status: w.status, destinationType: w.destinationType });

export function withdrawalView(w: Withdrawal): WithdrawalResource {
  return {
    ...withdrawalSummary(w),
    destinationDetails: w.destinationDetails,
    livemode: w.livemode,
    ...(w.notes != null ? { notes: w.notes } : {}),
    requestedAt: w.requestedAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    completedAt: w.completedAt?.toISOString() ?? null,
    ...(w.cancelledAt ? { cancelledAt: w.cancelledAt.toISOString() } : {}),
    ...(w.processorTransactionId ? { processorTransactionId: w.processorTransactionId } : {}),
    ...(w.transactionHash ? { transactionHash: w.transactionHash } : {}),
    ...(w.failureReason ? { failureReason: w.failureReason } : {}),
  };
}

/** The create response: exactly the fields the spec lists for it. */
export function createdWithdrawalView(w: Withdrawal): z.output<typeof createdWithdrawalResource> {
  return {
    ...withdrawalSummary(w),
    destinationDetails: w.destinationDetails,
    requestedAt: w.requestedAt.toISOString(),
  };
}

export function withdrawalListView(w: Withdrawal): z.output<typeof withdrawalListItemResource> {
  return {
    ...withdrawalSummary(w),
    requestedAt: w.requestedAt.toISOString(),
    completedAt: w.completedAt?.toISOString() ?? null,
  };
}

export function cancelledWithdrawalView(w: Withdrawal): z.output<typeof cancelledWithdrawalResource> {
  return { id: w.id, status: w.status, amountInCents: w.amountInCents };
}
