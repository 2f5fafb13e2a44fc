import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { pageMeta } from '../../domain/cursor.js';
import { countedTotal, pageIds } from '../lists/index.js';
import { newId } from '../../domain/ids.js';
import type { Caller } from '../businesses/index.js';
import { DomainError } from '../../domain/errors.js';
import { methodDestination, type DestinationType } from './withdrawal-method.entity.js';
import { postingStatement, lockBalance, postTransaction, ownerOf, readBalance, type Owner, transfer } from '../ledger/index.js';
import { centsToDecimalString } from '../../domain/money.js';
import { claimForFastPath, OutboxEntry } from '../outbox/index.js';
import { destinationText, matchingDestination, type Destination } from './destination.rules.js';
import { Withdrawal } from './withdrawal.entity.js';
import { moneyBack } from './withdrawal.rules.js';
import type { CreateWithdrawalInput, ListWithdrawalsQuery } from './withdrawal.schemas.js';
import { withdrawalCancelled, withdrawalWorkflowStart } from './withdrawal.start.js';
import { requireTransaction } from '../../db/transaction.js';

// The withdrawal and its workflow's outbox row, written only with the balance move (`postingStatement`, covered).
const INSERT_WITHDRAWAL = `,
  withdrawal as (
    insert into withdrawals (id, business_id, livemode, amount_in_cents, status, destination_type, destination_details, notes, requested_at, updated_at)
    select ?, business_id, ?, ?, ?, ?, ?, ?, ?, ? from moved),
  outbox as (
    insert into outbox (message, created_at, claimed_until) select ?::jsonb, ?, ? from moved returning id)
  select id from outbox`;

/**
 * Creates a pending withdrawal: the balance check, the move from `available` to `pending_withdrawal`
 * (a balanced ledger transaction), the record and the start of its workflow (an outbox row, claimed for
 * the caller's fast path), in the caller's transaction and in ONE statement: the balance check and move
 * are a conditional UPDATE of the balance row, and every other row is inserted only from what it
 * returned, so concurrent requests queue on that row, none can overdraw, and a refused request writes
 * nothing. The row is held from that statement to the commit (and the stored answer of an Idempotency-Key). This is the hottest money write (one
 * business's withdrawals all queue there; docs/decisions.md, Hot paths), so it is hand-written SQL rather than the unit of work.
 */
export async function createWithdrawal(
  tx: EntityManager,
  caller: Caller,
  input: CreateWithdrawalInput,
  deps: { processingDelayMs: number },
): Promise<{ withdrawal: Withdrawal; outbox: OutboxEntry }> {
  requireTransaction(tx);
  const owner = ownerOf(caller);
  const destination = await registeredDestination(tx, caller.businessId, input);
  const now = new Date();
  const withdrawal = pendingWithdrawal(owner, input, destination, now);
  const outbox = claimForFastPath({
    createdAt: now,
    dispatchedAt: null,
    attempts: 0,
    lastError: null,
    message: withdrawalWorkflowStart(withdrawal, deps.processingDelayMs),
  } as OutboxEntry);
  outbox.id = await insertIfCovered(tx, owner, withdrawal, outbox);
  return { withdrawal, outbox };
}

/** The new withdrawal as the statement inserts it and the API answers it (not a managed entity). */
function pendingWithdrawal(owner: Owner, input: CreateWithdrawalInput, destination: Destination, now: Date): Withdrawal {
  return {
    id: newId('wd'),
    ...owner,
    amountInCents: input.amount,
    status: 'pending',
    destinationType: destination.destinationType,
    destinationDetails: destinationText(destination),
    notes: input.notes ?? null,
    requestedAt: now,
    updatedAt: now,
    processingAt: null,
    completedAt: null,
    cancelledAt: null,
    failedAt: null,
    processorTransactionId: null,
    transactionHash: null,
    failureReason: null,
  } as Withdrawal;
}

/**
 * The move from `available` to `pending_withdrawal`, the withdrawal and its outbox row, in one statement
 * that writes none of them unless `available` covers the amount. Returns the outbox row's id.
 */
async function insertIfCovered(tx: EntityManager, owner: Owner, w: Withdrawal, outbox: OutboxEntry): Promise<number> {
  const move = postingStatement(
    owner,
    { kind: 'withdrawal.created', referenceId: w.id, lines: transfer('available', 'pending_withdrawal', w.amountInCents), at: w.requestedAt },
    { covered: true },
  );
  const [row] = await tx.execute<{ id: string }[]>(`with ${move.ctes}${INSERT_WITHDRAWAL}`, [
    ...move.params,
    w.id, w.livemode, w.amountInCents, w.status, w.destinationType, w.destinationDetails, w.notes, w.requestedAt, w.updatedAt,
    JSON.stringify(outbox.message), outbox.createdAt, outbox.claimedUntil,
  ]);
  if (!row) {
    // The spec's words stay the message; the entry says how much may be withdrawn, so the client need not
    // read the balance to find out (at this moment: a payment or a release may add to it).
    const available = (await readBalance(tx, owner))?.available ?? 0;
    throw new DomainError('insufficient_available_balance', {
      errors: [{ path: ['amount'], message: `Available balance is ${centsToDecimalString(available)} USD (${available} cents)` }],
    });
  }
  return Number(row.id);
}

/**
 * The business's registered method that the request names (`destinationKey`: e-mails and EVM addresses
 * in any case), as registered: the money goes to the destination the business set up, spelled as it set
 * it up. None: 400 "Withdrawal method not found", before anything is written. Methods are per business
 * and serve both modes; the business's few rows are found through `withdrawal_methods_business_idx`.
 */
async function registeredDestination(tx: EntityManager, businessId: string, requested: Destination): Promise<Destination> {
  // A plain read (no query builder, no entities to hydrate): it runs on every withdrawal's hot path.
  const rows = await tx.execute<{ destination_type: DestinationType; details: Record<string, string> | string }[]>(
    'select destination_type, details from withdrawal_methods where business_id = ? and destination_type = ?',
    [businessId, requested.destinationType],
  );
  const registered = rows
    .map((row) => methodDestination({ destinationType: row.destination_type, details: typeof row.details === 'string' ? JSON.parse(row.details) : row.details }))
    .filter((d): d is Destination => d !== null);
  const match = matchingDestination(registered, requested);
  if (!match) throw new DomainError('withdrawal_method_not_found');
  return match;
}

/**
 * Cancels a pending withdrawal: its amount back to available at once, and the news to its workflow (so
 * it ends at once instead of at its processing time) through the outbox, claimed for the request's fast
 * path, so a process that dies after the commit loses nothing; should the workflow not hear it anyway,
 * its conditional move to processing finds `cancelled` and ends. The record is locked and its status
 * re-read under the lock, so a cancel racing the workflow's move to `processing` has exactly one winner:
 * whichever commits first, the other sees the new status.
 */
export async function cancelWithdrawal(tx: EntityManager, caller: Caller, id: string): Promise<{ withdrawal: Withdrawal; outbox: OutboxEntry }> {
  requireTransaction(tx);
  const owner = ownerOf(caller);
  // Lock order for every withdrawal move: the balance row first, then the record.
  const balance = await lockBalance(tx, owner);
  const withdrawal = await tx.findOne(Withdrawal, { id, ...owner }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!withdrawal) throw new DomainError('withdrawal_not_found');
  if (withdrawal.status !== 'pending') {
    throw new DomainError('withdrawal_not_cancellable', { params: { status: withdrawal.status } });
  }
  const now = new Date();
  withdrawal.status = 'cancelled';
  withdrawal.cancelledAt = now;
  withdrawal.updatedAt = now;
  postTransaction(tx, balance, moneyBack(withdrawal, 'withdrawal.cancelled', now));
  return { withdrawal, outbox: claimForFastPath(tx.create(OutboxEntry, { message: withdrawalCancelled(withdrawal), createdAt: now })) };
}

export async function findWithdrawal(em: EntityManager, caller: Caller, id: string): Promise<Withdrawal> {
  const withdrawal = await em.findOne(Withdrawal, { id, ...ownerOf(caller) });
  if (!withdrawal) throw new DomainError('withdrawal_not_found');
  return withdrawal;
}

/** Newest first, by page number: the total from the counters, the page's rows by id (lists/page.queries.ts). */
export async function listWithdrawals(em: EntityManager, caller: Caller, query: ListWithdrawalsQuery) {
  const filter = { sql: 'business_id = ? and livemode = ?', params: [caller.businessId, caller.livemode] as unknown[] };
  if (query.status) (filter.sql += ' and status = ?'), filter.params.push(query.status);
  const total = countedTotal(em, caller, 'withdrawal', query.status ? [query.status] : undefined);
  const { ids, hasNextPage } = await pageIds(em, { table: 'withdrawals', filter, orderBy: 'requested_at desc, id desc' }, query.page, query.limit, total);
  const items = ids.length ? await em.find(Withdrawal, { id: { $in: ids } }, { orderBy: [{ requestedAt: 'desc' }, { id: 'desc' }] }) : [];
  return { items, meta: pageMeta(await total, query.page, query.limit, hasNextPage) };
}
