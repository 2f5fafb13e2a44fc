import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { requireTransaction } from '../../db/transaction.js';
import { DomainError } from '../../domain/errors.js';
import { Business } from '../businesses/index.js';
import { CheckoutSession } from '../checkout/index.js';
import { recordEvent } from '../events/index.js';
import { type Balance, lockBalance, ownerOf } from '../ledger/index.js';
import { hasStandingRefund } from '../refunds/index.js';
import { isUnderReview, type DisputeNotice, type DisputeProgress } from '../../../contracts/disputes.js';
import type { EvidenceReview } from '../processor/index.js';
import { Dispute } from './dispute.entity.js';
import { reinstateFunds, withdrawFunds } from './dispute-funds.lifecycle.js';
import {
  acceptedStatus,
  awaitsResponse,
  decisionOf,
  disputeEventPayload,
  emptyEvidence,
  isClosed,
  type Outcome,
} from './dispute.rules.js';

export type { DisputeNotice, DisputeProgress };

/**
 * The dispute's moves that the acquirer, the card network and the clock make: its opening (a notice),
 * a decision, a missed deadline, the reminder. Each runs in the caller's transaction (an activity's, or
 * the admin CLI's for a notice), under the business's balance lock and then the dispute's row lock, and
 * is conditional on the dispute's status, so a retried activity or a replayed workflow moves nothing twice.
 */

export const progressOf = (d: Dispute): DisputeProgress => ({
  id: d.id,
  status: d.status,
  evidenceDueBy: d.evidenceDueBy.toISOString(),
  submittedAt: d.submittedAt?.toISOString() ?? null,
  updatedAt: d.updatedAt.toISOString(),
});

const UUID = z.uuid();

/**
 * When evidence is due: `responseWindowMs` after the notice (or the escalation), unless the acquirer
 * names its own deadline (a Stripe dispute's `evidence_details.due_by`), which then stands.
 */
export interface DisputeClock {
  responseWindowMs: number;
  evidenceDueBy?: Date | null;
}

/** A dispute a real acquirer reported: its name, its own id for the dispute and its status as last heard. */
export interface AcquirerDispute {
  acquirer: string;
  acquirerDisputeId: string;
  acquirerStatus: string;
}

/**
 * Opens the dispute a notice reports: `dispute.created`, and for a chargeback its funds withdrawn at once.
 * A session disputed already answers its dispute (`opened: false`): one dispute per session, so the same
 * notice twice makes one. Refused (DomainError): an unknown session, one not paid, one refunded or being
 * refunded (the acquirer reverses such a notice), an amount above the session's total.
 */
export async function openDispute(
  tx: EntityManager,
  notice: DisputeNotice,
  times: DisputeClock,
  at: Date = new Date(),
  acquirer?: AcquirerDispute,
): Promise<{ dispute: Dispute; opened: boolean }> {
  requireTransaction(tx);
  const found = UUID.safeParse(notice.checkoutSessionId).success ? await tx.findOne(CheckoutSession, { id: notice.checkoutSessionId }) : null;
  if (!found) throw new DomainError('session_not_found');
  // Lock order of every money move: the balance, then the session (as a refund takes them).
  const balance = await lockBalance(tx, ownerOf(found));
  const existing = await tx.findOne(Dispute, { checkoutSessionId: found.id });
  if (existing) return { dispute: existing, opened: false };
  const session = await tx.findOneOrFail(CheckoutSession, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  const refunded = session.status === 'refunded' || (await hasStandingRefund(tx, session.id));
  if (refunded) throw new DomainError('dispute_session_refunded');
  if (session.status !== 'completed') throw new DomainError('dispute_session_not_completed', { params: { status: session.status } });
  const amount = notice.amountInCents ?? session.total;
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > session.total) {
    throw new DomainError('dispute_amount_invalid', { params: { total: (session.total / 100).toFixed(2) } });
  }
  const business = await tx.findOneOrFail(Business, { id: session.businessId });

  const dispute = tx.create(Dispute, {
    id: notice.disputeId,
    ...ownerOf(session),
    checkoutSessionId: session.id,
    amountInCents: amount,
    feeInCents: business.disputeFeeCents,
    reason: notice.reason,
    status: notice.inquiry ? 'warning_needs_response' : 'needs_response',
    evidence: emptyEvidence(),
    evidenceDueBy: times.evidenceDueBy ?? new Date(at.getTime() + times.responseWindowMs),
    submittedAt: null,
    closedAt: null,
    acquirer: acquirer?.acquirer ?? null,
    acquirerDisputeId: acquirer?.acquirerDisputeId ?? null,
    acquirerStatus: acquirer?.acquirerStatus ?? null,
    evidenceRefusal: null,
    remindedAt: null,
    fromAvailableInCents: null,
    fromReservesInCents: null,
    owedInCents: null,
    createdAt: at,
    updatedAt: at,
  });
  recordEvent(tx, ownerOf(dispute), 'dispute.created', disputeEventPayload(dispute), at);
  if (!notice.inquiry) await withdrawFunds(tx, balance, dispute, at);
  return { dispute, opened: true };
}

/** The balance lock, then the dispute's row: the order every dispute move takes. Null when there is no such dispute. */
async function locked(tx: EntityManager, id: string): Promise<{ dispute: Dispute; balance: Balance } | null> {
  requireTransaction(tx);
  const found = await tx.findOne(Dispute, { id });
  if (!found) return null;
  const balance = await lockBalance(tx, ownerOf(found));
  const dispute = await tx.findOneOrFail(Dispute, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  return { dispute, balance };
}

/**
 * A decision on an open dispute (the network's, or an operator's entering the acquirer's): a chargeback
 * won gets its amount back (`dispute.funds_reinstated`; the fee stays), lost keeps nothing back; an
 * inquiry won closes, lost escalates to a chargeback with a fresh window and its funds withdrawn. A
 * closed dispute is returned as it is.
 */
export async function decideDispute(
  tx: EntityManager,
  id: string,
  outcome: Outcome,
  times: DisputeClock,
  at: Date = new Date(),
): Promise<Dispute | null> {
  const row = await locked(tx, id);
  if (!row || isClosed(row.dispute.status)) return row?.dispute ?? null;
  const { dispute, balance } = row;
  const next = decisionOf(dispute.status, outcome);
  dispute.status = next.status;
  dispute.updatedAt = at;
  if (next.escalate) {
    dispute.evidenceDueBy = times.evidenceDueBy ?? new Date(at.getTime() + times.responseWindowMs);
    dispute.submittedAt = null;
    dispute.remindedAt = null;
    recordEvent(tx, ownerOf(dispute), 'dispute.updated', disputeEventPayload(dispute), at);
    await withdrawFunds(tx, balance, dispute, at);
    return dispute;
  }
  dispute.closedAt = at;
  if (next.reinstate) await reinstateFunds(tx, balance, dispute, at);
  recordEvent(tx, ownerOf(dispute), 'dispute.closed', disputeEventPayload(dispute), at);
  return dispute;
}

/**
 * The network's review of a dispute's submitted evidence: `network` is asked (the simulator decides by
 * its test phrases; a real acquirer answers null, its decision arriving later as its own event) before
 * any lock is taken, and a decision it gives is recorded as any other. A dispute no longer under review
 * is returned as it is.
 */
export async function reviewEvidence(
  tx: EntityManager,
  id: string,
  network: (review: EvidenceReview) => Promise<Outcome | null>,
  times: DisputeClock,
  at: Date = new Date(),
): Promise<Dispute | null> {
  requireTransaction(tx);
  const dispute = await tx.findOne(Dispute, { id });
  if (!dispute || !isUnderReview(dispute.status)) return dispute;
  const outcome = await network({ disputeId: dispute.id, livemode: dispute.livemode, evidence: dispute.evidence });
  return outcome ? decideDispute(tx, id, outcome, times, at) : dispute;
}

/**
 * The deadline passed with nothing submitted: a chargeback is lost, an inquiry closes (`warning_closed`).
 * Only once `evidenceDueBy` has passed by this clock, whoever asks; otherwise nothing changes.
 */
export async function expireDispute(tx: EntityManager, id: string, at: Date = new Date()): Promise<Dispute | null> {
  const row = await locked(tx, id);
  if (!row) return null;
  const { dispute } = row;
  if (!awaitsResponse(dispute.status) || at.getTime() < dispute.evidenceDueBy.getTime()) return dispute;
  dispute.status = acceptedStatus(dispute.status);
  dispute.closedAt = at;
  dispute.updatedAt = at;
  recordEvent(tx, ownerOf(dispute), 'dispute.closed', disputeEventPayload(dispute), at);
  return dispute;
}

/** `dispute.evidence_due_soon`, once per evidence window, while nothing has been submitted. */
export async function remindEvidenceDue(tx: EntityManager, id: string, at: Date = new Date()): Promise<Dispute | null> {
  requireTransaction(tx);
  const dispute = await tx.findOne(Dispute, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!dispute || !awaitsResponse(dispute.status) || dispute.remindedAt) return dispute;
  dispute.remindedAt = at;
  recordEvent(tx, ownerOf(dispute), 'dispute.evidence_due_soon', disputeEventPayload(dispute), at);
  return dispute;
}
