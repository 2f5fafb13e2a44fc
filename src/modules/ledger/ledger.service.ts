import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids.js';
import { applyPosting, postingDeltas, type BalanceFigures, type PostingLine } from './accounts.rules.js';
import { Balance, LedgerEntry, LedgerTransaction } from './ledger.entity.js';
import { requireTransaction } from '../../db/transaction.js';

export interface Owner {
  businessId: string;
  livemode: boolean;
}

/** The balance a record, a caller or anything else of one business and mode belongs to. */
export const ownerOf = (owned: Owner): Owner => ({ businessId: owned.businessId, livemode: owned.livemode });

/**
 * Locks the business's balance row for the rest of the caller's transaction, creating it on first use.
 * Every money move goes through here first, so concurrent moves on one business queue up and each sees
 * the figures the previous one left. Must be called inside the caller's transaction (`requireTransaction`).
 */
export async function lockBalance(em: EntityManager, owner: Owner): Promise<Balance> {
  requireTransaction(em);
  const where = { businessId: owner.businessId, livemode: owner.livemode };
  const options = { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } as const;
  const balance = await em.findOne(Balance, where, options);
  if (balance) return balance;
  // The business's first money move in this mode: create the row (a concurrent first move may beat us
  // to it, hence `do nothing`), then lock it like any other.
  await em
    .getConnection()
    .execute(
      `insert into balances (business_id, livemode, available, reserved, pending_withdrawal, refunds_in_flight, updated_at)
       values (?, ?, 0, 0, 0, 0, now()) on conflict do nothing`,
      [owner.businessId, owner.livemode],
      'run',
      em.getTransactionContext(),
    );
  return em.findOneOrFail(Balance, where, options);
}

/**
 * `lockBalance` without reading the figures into the unit of work: for a move whose own statement applies
 * its deltas (`postingStatement`) but must hold the balance row before it touches its record's row, the
 * order every money move takes its locks in. One round trip once the row exists.
 */
export async function lockBalanceRow(em: EntityManager, owner: Owner): Promise<void> {
  requireTransaction(em);
  const rows = await em.execute('select 1 from balances where business_id = ? and livemode = ? for update', [owner.businessId, owner.livemode]);
  if (rows.length === 0) await lockBalance(em, owner);
}

export const figuresOf = (balance: Balance): BalanceFigures => ({
  available: balance.available,
  reserved: balance.reserved,
  pending_withdrawal: balance.pendingWithdrawal,
  refunds_in_flight: balance.refundsInFlight,
});

export type Posting = {
  kind: string;
  referenceId: string;
  lines: PostingLine[];
  at?: Date;
  /** A chargeback only: it may leave `available` below zero (`applyPosting`). */
  overdraw?: boolean;
};

/** The ledger transaction and its entries, to be written by the caller's flush. */
function ledgerRows(em: EntityManager, owner: Owner, posting: Posting, at: Date): LedgerTransaction {
  const transaction = em.create(LedgerTransaction, {
    id: newId('ltx'),
    ...owner,
    kind: posting.kind,
    referenceId: posting.referenceId,
    createdAt: at,
  });
  for (const line of posting.lines) {
    em.create(LedgerEntry, { transactionId: transaction.id, ...owner, account: line.account, amount: line.amount });
  }
  return transaction;
}

/**
 * Records one balanced ledger transaction against a balance locked by `lockBalance`, and updates the
 * cached figures. Written by the caller's flush, in the caller's transaction, beside the state change
 * and the outbox event it belongs to. `(kind, referenceId)` is unique: the same move cannot post twice.
 */
export function postTransaction(em: EntityManager, balance: Balance, posting: Posting): LedgerTransaction {
  const next = applyPosting(figuresOf(balance), posting.lines, { overdraw: posting.overdraw });
  const at = posting.at ?? new Date();
  const transaction = ledgerRows(em, { businessId: balance.businessId, livemode: balance.livemode }, posting, at);
  balance.available = next.available;
  balance.reserved = next.reserved;
  balance.pendingWithdrawal = next.pending_withdrawal;
  balance.refundsInFlight = next.refunds_in_flight;
  balance.updatedAt = at;
  return transaction;
}

/**
 * A move as the first parts of one statement: `moved`, the UPDATE of the balance row that applies the
 * posting (one row when it applies, none otherwise: also when the business has no balance row yet), then
 * the ledger transaction and its entries, which insert only `from moved`. The caller adds its own rows the
 * same way (`select … from moved`) and selects what it needs, so a move that does not apply writes nothing.
 * `covered` (a withdrawal's create): it applies only if no business account goes negative, and the caller
 * throws its refusal when `moved` was empty. `onlyIf`: an SQL condition of the caller's own, such as a
 * state change earlier in the same statement having moved its row (a payment's completion). The row lock
 * is held for that one statement and the commit.
 */
export function postingStatement(owner: Owner, posting: Posting, opts: { covered: boolean; onlyIf?: string }): { ctes: string; params: unknown[] } {
  const delta = postingDeltas(posting.lines); // throws on an unbalanced posting
  const at = posting.at ?? new Date();
  const d = [delta.available, delta.reserved, delta.pending_withdrawal, delta.refunds_in_flight];
  const covered = opts.covered ? ' and available + ? >= 0 and reserved + ? >= 0 and pending_withdrawal + ? >= 0 and refunds_in_flight + ? >= 0' : '';
  return {
    ctes: `moved as (
        update balances set available = available + ?, reserved = reserved + ?, pending_withdrawal = pending_withdrawal + ?,
          refunds_in_flight = refunds_in_flight + ?, updated_at = ?
        where business_id = ? and livemode = ?${covered}${opts.onlyIf ? ` and ${opts.onlyIf}` : ''}
        returning business_id),
      posting as (
        insert into ledger_transactions (id, business_id, livemode, kind, reference_id, created_at)
        select ?, business_id, ?, ?, ?, ? from moved returning id),
      entries as (
        insert into ledger_entries (transaction_id, business_id, livemode, account, amount)
        select posting.id, ?, ?, line.account, line.amount
        from posting, jsonb_to_recordset(?::jsonb) as line(account text, amount bigint))`,
    params: [
      ...d, at, owner.businessId, owner.livemode, ...(opts.covered ? d : []),
      newId('ltx'), owner.livemode, posting.kind, posting.referenceId, at,
      owner.businessId, owner.livemode, JSON.stringify(posting.lines.map(({ account, amount }) => ({ account, amount }))),
    ],
  };
}

/** The figures without a lock, for reads (`GET /api/balance`). */
export async function readBalance(em: EntityManager, owner: Owner): Promise<Balance | null> {
  return em.findOne(Balance, { businessId: owner.businessId, livemode: owner.livemode });
}
