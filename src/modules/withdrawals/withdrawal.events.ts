import { centsToDecimalString } from '../../domain/money.js';
import type { Withdrawal } from './withdrawal.entity.js';

/**
 * Payloads of `withdrawal.paid` and `withdrawal.failed` (the spec does not show them). Shaped like the
 * spec's `refund.created`: the record's id, the amount in cents (and in decimals, as `checkout.succeeded`
 * gives it), the destination type, the status, the reference or the reason, and a timestamp.
 */
function withdrawalFields(w: Withdrawal) {
  return {
    withdrawalId: w.id,
    amount: w.amountInCents,
    amountInDecimals: centsToDecimalString(w.amountInCents),
    currency: 'USD',
    destinationType: w.destinationType,
  };
}

export function withdrawalPaidPayload(w: Withdrawal, at: Date) {
  return {
    ...withdrawalFields(w),
    status: 'completed' as const,
    ...(w.destinationType === 'wallet'
      ? { processorTransactionId: w.processorTransactionId }
      : { transactionHash: w.transactionHash }),
    timestamp: at.toISOString(),
  };
}

export function withdrawalFailedPayload(w: Withdrawal, at: Date) {
  return {
    ...withdrawalFields(w),
    status: 'failed' as const,
    failureReason: w.failureReason,
    timestamp: at.toISOString(),
  };
}
