import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { ListTotal } from '../../domain/cursor.js';
import { newId } from '../../domain/ids.js';
import type { AppDeps } from '../app-deps.js';
import type { Caller } from '../businesses/index.js';
import { DomainError, type FieldError } from '../../domain/errors.js';
import { centsToDecimalString } from '../../domain/money.js';
import { unknownFieldMessage } from '../../domain/unknown-fields.js';
import { parse } from '../../domain/validation.js';
import { CheckoutSession } from '../checkout/index.js';
import { recordEvent } from '../events/index.js';
import { cappedTotal, countedTotal, pageIds } from '../lists/index.js';
import { lines, lockBalance, postTransaction, ownerOf, type Owner, type Balance } from '../ledger/index.js';
import { claimForFastPath, OutboxEntry } from '../outbox/index.js';
import { consumeReserves } from '../reserves/index.js';
import { RefundReservePart } from './refund-reserve-part.entity.js';
import { Refund } from './refund.entity.js';
import { hasStandingRefund } from './refund.queries.js';
import { refundCreatedPayload } from './refund.events.js';
import { refundFunding } from './refund.rules.js';
import { refundWorkflowStart } from './refund.start.js';
import { createRefundInput, REFUND_AMOUNT_ADVICE, type CreateRefundInput, type ListRefundsQuery } from './refund.schemas.js';
import { requireTransaction } from '../../db/transaction.js';

const UUID = z.uuid();

/**
 * The create's body, parsed. One that gives an amount is refused (refund.schemas.ts says why); when it names
 * the caller's own session (its business and mode, which the caller may read anyway), the answer also says
 * what the refund would be: the session's total. Any other id gets the advice without a number, so the
 * answer tells nothing of another business's sessions.
 */
const isAmountEntry = (entry: FieldError) => entry.path.length === 1 && entry.message === unknownFieldMessage(String(entry.path[0]), REFUND_AMOUNT_ADVICE);

export async function parseRefundInput(em: EntityManager, caller: Caller, body: unknown): Promise<CreateRefundInput> {
  try {
    return parse(createRefundInput, body);
  } catch (error) {
    const errors = error instanceof DomainError ? (error.details.errors ?? []) : [];
    const id = (body as { checkoutSessionId?: unknown } | null)?.checkoutSessionId;
    if (!errors.some(isAmountEntry) || typeof id !== 'string' || !UUID.safeParse(id).success) throw error;
    const session = await em.findOne(CheckoutSession, { id, ...ownerOf(caller) }, { fields: ['total'] });
    if (!session) throw error;
    const total = `This session's total is ${centsToDecimalString(session.total)} USD (${session.total} cents)`;
    throw new DomainError('validation_failed', { errors: errors.map((e) => (isAmountEntry(e) ? { ...e, message: `${e.message}. ${total}` } : e)) });
  }
}

/**
 * Creates a pending refund of the session's total. In one transaction under the balance lock: the
 * rules, the funds (available first, then the oldest reserves, each reserve's share recorded) moved to
 * `refunds_in_flight`, `refund.created`, and the start of the refund's workflow.
 */
export async function createRefund(
  tx: EntityManager,
  caller: Caller,
  input: CreateRefundInput,
  disputeBlocking: AppDeps['disputeBlockingRefund'],
): Promise<{ refund: Refund; outbox: OutboxEntry }> {
  requireTransaction(tx);
  const owner = ownerOf(caller);
  // Lock order for every refund move: the balance row, then the session and the refund.
  const balance = await lockBalance(tx, owner);
  const session = await refundableSession(tx, owner, input.checkoutSessionId, disputeBlocking);
  const amount = session.total;
  const funds = await takeFunds(tx, owner, balance, amount);

  const now = new Date();
  const refund = tx.create(Refund, {
    id: newId('ref'),
    ...owner,
    checkoutSessionId: session.id,
    amountInCents: amount,
    fromAvailableInCents: funds.fromAvailable,
    fromReservesInCents: funds.fromReserves,
    reason: input.reason ?? null,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
  });
  // Each reserve's share, so that a failed refund gives it back to the reserve it came from.
  for (const part of funds.reserveParts) tx.create(RefundReservePart, { refundId: refund.id, reserveId: part.reserveId, amountInCents: part.amount });
  postTransaction(tx, balance, {
    kind: 'refund.created',
    referenceId: refund.id,
    lines: lines(
      { account: 'available', amount: -funds.fromAvailable },
      { account: 'reserved', amount: -funds.fromReserves },
      { account: 'refunds_in_flight', amount },
    ),
    at: now,
  });
  recordEvent(tx, owner, 'refund.created', refundCreatedPayload(refund, now), now);
  // Claimed for the caller's fast path (`afterCommit`); the event's fan-out goes to the relay.
  const outbox = claimForFastPath(tx.create(OutboxEntry, { createdAt: now, message: refundWorkflowStart(refund) }));
  return { refund, outbox };
}

/** The caller's session, locked, if a refund of it may be created; else the spec's error, in the spec's order. */
async function refundableSession(
  tx: EntityManager,
  owner: Owner,
  checkoutSessionId: string,
  disputeBlocking: AppDeps['disputeBlockingRefund'],
): Promise<CheckoutSession> {
  const session = UUID.safeParse(checkoutSessionId).success
    ? await tx.findOne(CheckoutSession, { id: checkoutSessionId, ...owner }, { lockMode: LockMode.PESSIMISTIC_WRITE })
    : null;
  if (!session) throw new DomainError('session_not_found');
  // Checked before the status: a refunded session answers "already exists", not "not completed".
  if (await hasStandingRefund(tx, session.id)) throw new DomainError('refund_already_exists');
  // The cardholder's bank has the money back, or is deciding whether to take it: a refund would pay twice.
  // A dispute's opening takes the same balance lock first, so of a refund and a dispute only one takes the money.
  // Asked through AppDeps: disputes/ reads refunds/, so refunds/ names nothing of disputes/.
  const disputeStatus = await disputeBlocking(tx, session.id);
  if (disputeStatus) throw new DomainError('refund_session_disputed', { params: { status: disputeStatus } });
  if (session.status !== 'completed') throw new DomainError('refund_session_not_completed');
  return session;
}

/**
 * The refund's money: available first, then the oldest reserves, whose shares are taken here. What the
 * reserves hold is the balance's `reserved`: every reserve move posts to it in the reserve's transaction,
 * under this lock, and `ledger verify` holds the two equal. consumeReserves still refuses a refund the
 * reserves themselves cannot cover.
 */
async function takeFunds(tx: EntityManager, owner: Owner, balance: Balance, amount: number) {
  const funding = refundFunding(amount, { available: balance.available, heldInReserves: balance.reserved });
  if (!funding) throw new DomainError('insufficient_balance_for_refund');
  const consumed = await consumeReserves(tx, owner, funding.fromReserves);
  if (consumed.taken !== funding.fromReserves) throw new DomainError('insufficient_balance_for_refund');
  return { ...funding, reserveParts: consumed.parts };
}

export async function findRefund(em: EntityManager, caller: Caller, id: string): Promise<Refund> {
  const refund = await em.findOne(Refund, { id, ...ownerOf(caller) });
  if (!refund) throw new DomainError('refund_not_found');
  return refund;
}

/**
 * Newest first, by page number. The total comes from the counters; under `transactionId` (one session's
 * refunds, a handful) it is counted through the session's index. The page's rows are read by id.
 */
export async function listRefunds(em: EntityManager, caller: Caller, query: ListRefundsQuery) {
  const pagination = ({ total }: ListTotal) => ({ page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) });
  const filter = { sql: 'business_id = ? and livemode = ?', params: [caller.businessId, caller.livemode] as unknown[] };
  if (query.status) (filter.sql += ' and status = ?'), filter.params.push(query.status);
  if (query.transactionId !== undefined) {
    // A session id that is not a UUID names no session, so it matches no refund.
    if (!UUID.safeParse(query.transactionId).success) return { items: [], pagination: pagination({ total: 0, capped: false }) };
    (filter.sql += ' and checkout_session_id = ?'), filter.params.push(query.transactionId);
  }
  const total =
    query.transactionId === undefined
      ? countedTotal(em, caller, 'refund', query.status ? [query.status] : undefined)
      : cappedTotal(em, `select 1 from refunds where ${filter.sql}`, filter.params);
  const { ids } = await pageIds(em, { table: 'refunds', filter, orderBy: 'created_at desc, id desc' }, query.page, query.limit, total);
  const items = ids.length ? await em.find(Refund, { id: { $in: ids } }, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }) : [];
  return { items, pagination: pagination(await total) };
}
