import { LockMode, raw, type EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../events/index.js';
import { expireSession, isPastExpiry } from './expiry.rules.js';
import { requireTransaction } from '../../db/transaction.js';
import { checkoutFailedPayload } from './payment.rules.js';
import { CheckoutSession, type SessionStatus } from './session.entity.js';
import type { PaymentDetails } from '../../../contracts/checkout.js';

/**
 * pending → processing, storing the customer's details and the attempt. The conditional update is the
 * guard that makes a second or concurrent pay on the same session charge nothing: only one attempt
 * moves it. The same attempt asking again (its activity retried after the answer was lost) is told it
 * started, so it goes on to charge instead of leaving the session `processing` with nobody to finish it.
 * A session past its `expiresAt` is not moved: it is cancelled instead.
 */
export async function beginPayment(
  em: EntityManager,
  sessionId: string,
  details: PaymentDetails,
  attemptId: string,
): Promise<{ started: boolean; status: SessionStatus | null }> {
  const now = new Date();
  const moved = await em.nativeUpdate(
    CheckoutSession,
    // Never for an attempt its pay call refused (`refuseAttempt`): that call told the customer to retry.
    { id: sessionId, status: 'pending', expiresAt: { $gt: now }, [raw('not (? = any(refused_attempt_ids))', [attemptId])]: [] },
    {
      status: 'processing',
      paymentAttemptId: attemptId,
      customerName: details.customerName,
      ...(details.customerEmail ? { customerEmail: details.customerEmail } : {}),
      shipping: details.shipping ?? null,
      cardBrand: details.cardBrand,
      cardLast4: details.cardLast4,
      updatedAt: now,
    },
  );
  if (moved === 1) return { started: true, status: 'processing' };
  const current = await em.fork().findOne(CheckoutSession, { id: sessionId }, { fields: ['status', 'paymentAttemptId', 'expiresAt'] });
  if (current?.status === 'processing' && current.paymentAttemptId === attemptId) return { started: true, status: 'processing' };
  // Expired while the customer was paying: it is cancelled, whether or not the expiry sweep got there first.
  if (current && isPastExpiry(current, now)) return { started: false, status: await expireSession(em, sessionId, now) };
  return { started: false, status: current?.status ?? null };
}

/**
 * Names `attemptId` refused on a session still `pending`, so `beginPayment` never moves it for that attempt;
 * false when the session is no longer pending (the attempt, or another, moved it first). One statement,
 * conditional on the row as it is when its lock is held: a `beginPayment` under way commits first, and
 * this then finds the session moved. A pay call writes it before it answers 503, which makes the 503
 * true: nothing of that attempt can be charged afterwards, whatever the server still holds.
 */
export async function refuseAttempt(em: EntityManager, sessionId: string, attemptId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update checkout_sessions set refused_attempt_ids = array_append(refused_attempt_ids, ?) where id = ? and status = 'pending' returning id`,
    [attemptId, sessionId],
  );
  return rows.length === 1;
}

/** Whether a pay call refused `attemptId` on the session (`refuseAttempt`): that attempt then never moves it. */
export async function attemptRefused(em: EntityManager, sessionId: string, attemptId: string): Promise<boolean> {
  const [row] = await em.getConnection().execute<{ refused: boolean }[]>(`select ? = any(refused_attempt_ids) as refused from checkout_sessions where id = ?`, [attemptId, sessionId]);
  return row?.refused === true;
}

/**
 * A session's payment as its checkout workflow asks about it when it may be in doubt: its status, the
 * attempt that moved it, and how long it has been in that status by the database's clock (the attempt's
 * `updated_at` was written when it began).
 */
export async function paymentInDoubt(em: EntityManager, sessionId: string): Promise<{ status: SessionStatus | null; attemptId: string | null; processingForMs: number }> {
  const [row] = await em.getConnection().execute<{ status: SessionStatus; payment_attempt_id: string | null; age_ms: number }[]>(
    `select status, payment_attempt_id, (extract(epoch from now() - updated_at) * 1000)::float8 as age_ms from checkout_sessions where id = ?`,
    [sessionId],
  );
  return { status: row?.status ?? null, attemptId: row?.payment_attempt_id ?? null, processingForMs: Math.max(0, Math.round(row?.age_ms ?? 0)) };
}

/** What the charge needs, read from the database (the truth) rather than carried in workflow history. */
export async function chargeRequestOf(em: EntityManager, sessionId: string) {
  // Only the three columns: on the pay's path, between the charge and the customer's answer.
  const session = await em.fork().findOneOrFail(CheckoutSession, { id: sessionId }, { fields: ['total', 'livemode', 'status'] });
  return { amountInCents: session.total, currency: 'USD' as const, livemode: session.livemode, status: session.status };
}

/** processing → failed with the decline, and `checkout.failed`, in the caller's transaction. Safe to run twice. */
export async function failPayment(
  tx: EntityManager,
  sessionId: string,
  failure: { code: string; message: string },
  at: Date = new Date(),
): Promise<{ status: SessionStatus }> {
  requireTransaction(tx);
  const session = await tx.findOneOrFail(CheckoutSession, { id: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (session.status !== 'processing') return { status: session.status };
  session.status = 'failed';
  session.failureCode = failure.code;
  session.failureMessage = failure.message;
  recordEvent(tx, { businessId: session.businessId, livemode: session.livemode }, 'checkout.failed', checkoutFailedPayload(session, failure, at), at);
  return { status: session.status };
}
