import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { CheckoutSession } from '../checkout/index.js';
import { recordEvent } from '../events/index.js';
import { finishInFlight, startInFlight, lockBalance, postTransaction, ownerOf, type Balance, transfer } from '../ledger/index.js';
import { requireTransaction } from '../../db/transaction.js';
import { restoreReserves } from '../reserves/index.js';
import { RefundReservePart } from './refund-reserve-part.entity.js';
import { Refund } from './refund.entity.js';
import { refundCompletedPayload, refundFailedPayload } from './refund.events.js';
import { refundFailedLines } from './refund.rules.js';

/**
 * The moves the refund workflow asks for after the create. Each is conditional on the refund's status,
 * and each ledger posting is unique by (kind, refund id), so a retried activity or a worker that died
 * mid-way and came back can never move the money twice. Each takes the transaction the activity opened.
 */

/** `pending` → `processing`. Returns the refund afterwards, whatever its status. */
export const startRefundProcessing = (em: EntityManager, id: string): Promise<Refund> => startInFlight(em, Refund, id);

/**
 * `processing` → `completed`: the session becomes `refunded`, the money leaves `refunds_in_flight` for
 * processor clearing (it is on its way back to the card), and `refund.completed` is recorded.
 */
export async function completeRefund(tx: EntityManager, id: string, processorRefundId: string): Promise<Refund> {
  return finishInFlight(tx, Refund, id, async (tx, refund, balance, now) => {
    refund.status = 'completed';
    refund.completedAt = now;
    refund.processorRefundId = processorRefundId;
    const session = await tx.findOneOrFail(CheckoutSession, { id: refund.checkoutSessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    session.status = 'refunded';
    session.updatedAt = now;
    postTransaction(tx, balance, {
      kind: 'refund.completed',
      referenceId: refund.id,
      lines: transfer('refunds_in_flight', 'processor_clearing', refund.amountInCents),
      at: now,
    });
    recordEvent(tx, ownerOf(refund), 'refund.completed', refundCompletedPayload(refund, now), now);
  });
}

/**
 * `processing` → `failed`: each reserve that funded the refund gets its own share back (`reserved`, its
 * status recomputed, its `releaseAt` kept; one already due is released at once by its workflow), and
 * only the part taken from `available` returns to `available`. So a refund that keeps failing can never
 * turn held money into money the merchant may withdraw. The session stays `completed`, so it may be
 * refunded again.
 */
export async function failRefund(tx: EntityManager, id: string, failureReason: string): Promise<Refund> {
  return finishInFlight(tx, Refund, id, (tx, refund, balance, now) => moneyBack(tx, refund, balance, failureReason, 'refunds_in_flight', now));
}

/**
 * `completed` → `failed`, when the acquirer says later that a refund it had taken failed (Stripe's
 * `refund.failed`: the card was closed, say, and the money came back to the platform's account). The money
 * returns as for a refund that failed in flight (the reserves' shares to them, the rest to `available`), but
 * from `processor_clearing`, where the completion had sent it; `completedAt` is cleared (the table holds it
 * to `completed`); the session is `completed` again, so it may be refunded again; `refund.failed` is recorded. Locks as every money move does (the balance, then the
 * refund), and moves only a refund still `completed`, so a second event of the same failure moves nothing.
 */
export async function failCompletedRefund(tx: EntityManager, id: string, failureReason: string): Promise<{ refund: Refund; moved: boolean }> {
  requireTransaction(tx);
  const { businessId, livemode } = await tx.findOneOrFail(Refund, { id });
  const balance = await lockBalance(tx, { businessId, livemode });
  const refund = await tx.findOneOrFail(Refund, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (refund.status !== 'completed') return { refund, moved: false };
  const now = new Date();
  refund.updatedAt = now;
  // `completedAt` is the spec's "when completed", and the table holds it to that; Stripe's refund id stays.
  refund.completedAt = null;
  const session = await tx.findOneOrFail(CheckoutSession, { id: refund.checkoutSessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (session.status === 'refunded') {
    session.status = 'completed';
    session.updatedAt = now;
  }
  await moneyBack(tx, refund, balance, failureReason, 'processor_clearing', now);
  return { refund, moved: true };
}

/** The one way a refund fails: its money back where it came from, and `refund.failed`. */
async function moneyBack(tx: EntityManager, refund: Refund, balance: Balance, failureReason: string, from: 'refunds_in_flight' | 'processor_clearing', now: Date): Promise<void> {
  refund.status = 'failed';
  refund.failedAt = now;
  refund.failureReason = failureReason;
  const parts = await tx.find(RefundReservePart, { refundId: refund.id }, { orderBy: { reserveId: 'asc' } });
  const toReserves = await restoreReserves(tx, { id: refund.id, description: `failed refund ${refund.id}` }, parts.map((p) => ({ reserveId: p.reserveId, amount: p.amountInCents })), now);
  postTransaction(tx, balance, {
    kind: 'refund.failed',
    referenceId: refund.id,
    lines: refundFailedLines(refund.amountInCents, toReserves, from),
    at: now,
  });
  recordEvent(tx, ownerOf(refund), 'refund.failed', refundFailedPayload(refund, now), now);
}

