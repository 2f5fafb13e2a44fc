import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../events/event.service.js';
import type { PayoutReference } from '../processor/payouts.simulator.js';
import { lockBalance, postTransaction } from '../ledger/ledger.service.js';
import { Withdrawal } from './withdrawal.entity.js';
import { withdrawalFailedPayload, withdrawalPaidPayload } from './withdrawal.events.js';
import { transfer } from '../ledger/accounts.rules.js';

/**
 * The moves the withdrawal workflow asks for after the create. Each is a transition conditional on the
 * record's current status, so running one twice (a retried activity, a replayed workflow) is harmless:
 * the second run finds the status already moved and returns the record as it is.
 */

/** `pending` → `processing`, unless a cancel committed first. Returns the record afterwards. */
export async function startWithdrawalProcessing(em: EntityManager, id: string): Promise<Withdrawal> {
  const now = new Date();
  // The row lock that a concurrent cancel holds makes this wait, then re-check the status it committed.
  await em.nativeUpdate(Withdrawal, { id, status: 'pending' }, { status: 'processing', processingAt: now, updatedAt: now });
  return em.findOneOrFail(Withdrawal, { id }, { refresh: true });
}

/** `processing` → `completed`: the money leaves `pending_withdrawal` for payouts clearing; `withdrawal.paid`. */
export async function completeWithdrawal(em: EntityManager, id: string, reference: PayoutReference): Promise<Withdrawal> {
  return finish(em, id, (tx, withdrawal, balance, now) => {
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
export async function failWithdrawal(em: EntityManager, id: string, failureReason: string): Promise<Withdrawal> {
  return finish(em, id, (tx, withdrawal, balance, now) => {
    withdrawal.status = 'failed';
    withdrawal.failedAt = now;
    withdrawal.failureReason = failureReason;
    postTransaction(tx, balance, {
      kind: 'withdrawal.failed',
      referenceId: withdrawal.id,
      lines: transfer('pending_withdrawal', 'available', withdrawal.amountInCents),
      at: now,
    });
    recordEvent(tx, ownerOf(withdrawal), 'withdrawal.failed', withdrawalFailedPayload(withdrawal, now), now);
  });
}

const ownerOf = (w: Withdrawal) => ({ businessId: w.businessId, livemode: w.livemode });

type Balance = Awaited<ReturnType<typeof lockBalance>>;

async function finish(
  em: EntityManager,
  id: string,
  apply: (tx: EntityManager, withdrawal: Withdrawal, balance: Balance, now: Date) => void,
): Promise<Withdrawal> {
  return em.transactional(async (tx) => {
    const { businessId, livemode } = await tx.findOneOrFail(Withdrawal, { id });
    // Same lock order as the cancel: the balance row, then the record.
    const balance = await lockBalance(tx, { businessId, livemode });
    const withdrawal = await tx.findOneOrFail(Withdrawal, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (withdrawal.status !== 'processing') return withdrawal;
    const now = new Date();
    withdrawal.updatedAt = now;
    apply(tx, withdrawal, balance, now);
    return withdrawal;
  });
}
