import type { PayoutOutcome, PayoutRequest, RefundOutcome, RefundRequest } from '../processor.port.js';

/**
 * A refund or a payout as the simulator records it under its idempotency key, the way it records a
 * charge (charge-book.store.ts): what a real processor keeps on its side, and what lets a test count
 * the money it moved by the processor's own record, not by the service's. The first call under a key
 * stands; a retried call answers it.
 */
export interface SimulatorMove {
  kind: 'refund' | 'payout';
  idempotencyKey: string;
  livemode: boolean;
  amountInCents: number;
  /** The charge a refund returns money from; null for a payout. */
  chargeId: string | null;
  status: 'succeeded' | 'declined';
  /** The processor's id for the move (the refund's id, the payout's transaction id or chain hash); null when declined. */
  reference: string | null;
  /** Why it was declined; null when it succeeded. */
  message: string | null;
}

/** A refund's outcome as a move to record. The simulator never answers `pending`, so it is never recorded. */
export function refundMove(request: RefundRequest, outcome: Exclude<RefundOutcome, { status: 'pending' }>): SimulatorMove {
  const { idempotencyKey, livemode, amountInCents, chargeId } = request;
  return outcome.status === 'succeeded'
    ? { kind: 'refund', idempotencyKey, livemode, amountInCents, chargeId, status: 'succeeded', reference: outcome.refundId, message: null }
    : { kind: 'refund', idempotencyKey, livemode, amountInCents, chargeId, status: 'declined', reference: null, message: outcome.message };
}

export function refundOutcomeOf(move: SimulatorMove): RefundOutcome {
  return move.status === 'succeeded' ? { status: 'succeeded', refundId: move.reference! } : { status: 'declined', message: move.message! };
}

export function payoutMove(request: PayoutRequest, outcome: PayoutOutcome): SimulatorMove {
  const { idempotencyKey, livemode, amountInCents } = request;
  if (outcome.status === 'declined') return { kind: 'payout', idempotencyKey, livemode, amountInCents, chargeId: null, status: 'declined', reference: null, message: outcome.message };
  const reference = 'processorTransactionId' in outcome ? outcome.processorTransactionId : outcome.transactionHash;
  return { kind: 'payout', idempotencyKey, livemode, amountInCents, chargeId: null, status: 'succeeded', reference, message: null };
}

/** The recorded payout as the port answers it: a wallet payout by its transaction id, a crypto one by its hash. */
export function payoutOutcomeOf(move: SimulatorMove, destinationType: PayoutRequest['destination']['destinationType']): PayoutOutcome {
  if (move.status === 'declined') return { status: 'declined', message: move.message! };
  return destinationType === 'wallet' ? { status: 'paid', processorTransactionId: move.reference! } : { status: 'paid', transactionHash: move.reference! };
}
