import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../events/index.js';
import type { PayoutReference } from '../processor/index.js';
import { finishInFlight, startInFlight, postTransaction, ownerOf, transfer } from '../ledger/index.js';
import { Withdrawal } from './withdrawal.entity.js';
import { moneyBack } from './withdrawal.rules.js';
import { withdrawalFailedPayload, withdrawalPaidPayload } from './withdrawal.events.js';

/**
 * The moves the withdrawal workflow asks for after the create. Each is a transition conditional on the
 * record's current status, so running one twice (a retried activity, a replayed workflow) is harmless:
 * the second run finds the status already moved and returns the record as it is. Each takes the
 * transaction the activity opened.
 */

/** `pending` → `processing`, unless a cancel committed first. Returns the record afterwards. */
export const startWithdrawalProcessing = (em: EntityManager, id: string): Promise<Withdrawal> => startInFlight(em, Withdrawal, id);

/** `processing` → `completed`: the money leaves `pending_withdrawal` for payouts clearing; `withdrawal.paid`. */
export async function completeWithdrawal(tx: EntityManager, id: string, reference: PayoutReference): Promise<Withdrawal> {
  return finishInFlight(tx, Withdrawal, id, (tx, withdrawal, balance, now) => {
    withdrawal.status = 'completed';
    withdrawal.completedAt = now;
    withdrawal.processorTransactionId = 'processorTransactionId' in reference ? reference.processorTransactionId : null;
    withdrawal.transactionHash = 'transactionHash' in reference ? reference.transactionHash : null;
    postTransaction(tx, balance, {
      kind: 'withdrawal.paid',
      referenceId: withdrawal.id,
      lines: transfer('pending_withdrawal', 'payouts_clearing', withdrawal.amountInCents),
      at: now,
    });
    recordEvent(tx, ownerOf(withdrawal), 'withdrawal.paid', withdrawalPaidPayload(withdrawal, now), now);
  });
}

/** `processing` → `failed`: the money returns to `available`; `withdrawal.failed`. */
export async function failWithdrawal(tx: EntityManager, id: string, failureReason: string): Promise<Withdrawal> {
  return finishInFlight(tx, Withdrawal, id, (tx, withdrawal, balance, now) => {
    withdrawal.status = 'failed';
    withdrawal.failedAt = now;
    withdrawal.failureReason = failureReason;
    postTransaction(tx, balance, moneyBack(withdrawal, 'withdrawal.failed', now));
    recordEvent(tx, ownerOf(withdrawal), 'withdrawal.failed', withdrawalFailedPayload(withdrawal, now), now);
  });
}

