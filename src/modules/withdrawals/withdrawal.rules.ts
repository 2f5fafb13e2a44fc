import { transfer, type Posting } from '../ledger/index.js';

/**
 * A withdrawal that will not be paid (cancelled while pending, or failed by the processor) gives its
 * whole amount back: out of `pending_withdrawal`, into `available`, referenced by the withdrawal so that
 * it is posted once whatever runs twice.
 */
export function moneyBack(withdrawal: { id: string; amountInCents: number }, kind: 'withdrawal.cancelled' | 'withdrawal.failed', at: Date): Posting {
  return { kind, referenceId: withdrawal.id, lines: transfer('pending_withdrawal', 'available', withdrawal.amountInCents), at };
}
