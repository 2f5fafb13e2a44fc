import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { requireTransaction } from '../../db/transaction.js';
import { newId } from '../../domain/ids.js';
import { recordEvent } from '../events/index.js';
import { lockBalance, ownerOf } from '../ledger/index.js';
import type { AcquirerDisputeReference, EvidenceSubmission } from '../processor/index.js';
import { isClosed, isInquiry, isUnderReview, type DisputeNotice, type DisputeReason } from '../../../contracts/disputes.js';
import { Dispute } from './dispute.entity.js';
import { decideDispute, openDispute, type DisputeClock } from './dispute.lifecycle.js';
import { awaitsResponse, disputeEventPayload } from './dispute.rules.js';

/**
 * A dispute as a real acquirer reports it (each of Stripe's `charge.dispute.*` events carries the whole
 * dispute), and the moves that bring ours to where it says the dispute stands. Reports may come twice and
 * in any order, so each is applied as a target, forward only: a report behind ours changes nothing.
 */

/** Where the acquirer says a dispute stands, in the order a dispute moves. */
export type AcquirerStage = 'inquiry' | 'chargeback' | 'inquiry_closed' | 'won' | 'lost';

export interface AcquirerDisputeReport {
  acquirer: string;
  /** The acquirer's id for the dispute (Stripe's `du_…`). */
  acquirerDisputeId: string;
  /** Its status in the acquirer's words, as last heard (kept on the dispute). */
  acquirerStatus: string;
  checkoutSessionId: string;
  reason: DisputeReason;
  amountInCents: number;
  /** The acquirer's deadline for evidence; null: the response window from now. */
  evidenceDueBy: Date | null;
  stage: AcquirerStage;
}

/** A report that names another dispute of a session this service already follows as an acquirer's: recorded, alerted, not applied. */
export class AcquirerReportConflict extends Error {
  override readonly name = 'AcquirerReportConflict';
}

export interface AppliedReport {
  dispute: Dispute;
  /** The notice this report opened the dispute with (its workflow starts from it), or null: it was open already. */
  opened: DisputeNotice | null;
  /** Moved by this report (opened, escalated, decided, its deadline changed): its workflow hears of it. */
  changed: boolean;
}

/**
 * Opens the dispute the report names (or adopts the one an operator entered for the session before the
 * acquirer's events were connected), then moves it forward to the report's stage: an inquiry escalated
 * to a chargeback (funds withdrawn), a chargeback won (funds reinstated) or lost, an inquiry closed. A
 * dispute already closed, or further along than the report, is left as it is. In the caller's
 * transaction; refused (DomainError) as a notice is: an unknown session, one not paid, one refunded, an
 * amount above its total.
 */
export async function applyAcquirerReport(tx: EntityManager, report: AcquirerDisputeReport, clock: DisputeClock, at: Date = new Date()): Promise<AppliedReport> {
  requireTransaction(tx);
  const times = { ...clock, evidenceDueBy: report.evidenceDueBy };
  let opened: DisputeNotice | null = null;
  let adopted = false;
  let dispute = await tx.findOne(Dispute, { acquirer: report.acquirer, acquirerDisputeId: report.acquirerDisputeId });
  if (!dispute) {
    const inquiry = report.stage === 'inquiry' || report.stage === 'inquiry_closed';
    const notice = { disputeId: newId('dsp'), checkoutSessionId: report.checkoutSessionId, reason: report.reason, amountInCents: report.amountInCents, inquiry };
    const known = { acquirer: report.acquirer, acquirerDisputeId: report.acquirerDisputeId, acquirerStatus: report.acquirerStatus };
    const result = await openDispute(tx, notice, times, at, known);
    dispute = result.dispute;
    if (result.opened) opened = notice;
    else {
      // The same dispute opened by another of its events that committed first (two delivered at once), or,
      // one dispute per session, another the acquirer reported: that one is not this, and nothing of it moves.
      if (dispute.acquirerDisputeId && dispute.acquirerDisputeId !== report.acquirerDisputeId) throw new AcquirerReportConflict(`session ${report.checkoutSessionId} is disputed already by ${dispute.acquirerDisputeId} (${dispute.id})`);
      // Entered by an operator (`dispute open`) before the acquirer's events were connected: it is this one.
      adopted = !dispute.acquirerDisputeId;
      Object.assign(dispute, known);
    }
  }
  const before = { status: dispute.status, dueBy: dispute.evidenceDueBy.getTime() };
  dispute = await moveForward(tx, dispute, report, times, at, adopted);
  dispute.acquirerStatus = report.acquirerStatus;
  const changed = opened !== null || dispute.status !== before.status || dispute.evidenceDueBy.getTime() !== before.dueBy;
  return { dispute, opened, changed };
}

async function moveForward(tx: EntityManager, found: Dispute, report: AcquirerDisputeReport, times: DisputeClock, at: Date, adopted: boolean): Promise<Dispute> {
  await tx.flush();
  // The balance, then the dispute's row: the order every dispute move takes (dispute.lifecycle.ts). Holding
  // the row while waiting for the balance deadlocked with a move that holds the balance and asks for the
  // row (an operator's decision, the deadline's expiry), and PostgreSQL ended one of the two.
  await lockBalance(tx, ownerOf(found));
  const dispute = await tx.findOneOrFail(Dispute, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (isClosed(dispute.status)) return dispute;
  // Each move locks the balance afresh (`lockBalance` re-reads its row): what the one before changed is
  // written first, or that read would undo it in memory while its ledger entries stayed.
  const decide = async (outcome: 'won' | 'lost') => {
    await tx.flush();
    return (await decideDispute(tx, dispute.id, outcome, times, at)) ?? dispute;
  };
  const inquiry = isInquiry(dispute.status);
  switch (report.stage) {
    case 'inquiry':
      // An inquiry's report for what is a chargeback here is behind it, deadline and all: a chargeback's
      // deadline is the network's, set when the funds were withdrawn, not the inquiry's before it. Except
      // the acquirer's first word on a dispute an operator entered: nothing of the acquirer's came before
      // it, and its date is the only one the acquirer has given.
      return inquiry || adopted ? adoptDeadline(tx, dispute, report.evidenceDueBy, at) : dispute;
    case 'inquiry_closed':
      // An inquiry closes as won (`warning_closed`); a chargeback cannot go back to being one.
      return inquiry ? decide('won') : dispute;
    case 'chargeback':
      return inquiry ? decide('lost') : adoptDeadline(tx, dispute, report.evidenceDueBy, at);
    case 'won':
    case 'lost':
      // A chargeback's outcome reported for what is still an inquiry here: it escalated first (its funds withdrawn).
      if (inquiry) await decide('lost');
      return decide(report.stage);
  }
}

/** The acquirer moved the deadline of a dispute still waiting for evidence: the merchant is told (`dispute.updated`). */
async function adoptDeadline(tx: EntityManager, dispute: Dispute, dueBy: Date | null, at: Date): Promise<Dispute> {
  if (!dueBy || !awaitsResponse(dispute.status) || dueBy.getTime() === dispute.evidenceDueBy.getTime()) return dispute;
  dispute.evidenceDueBy = dueBy;
  dispute.updatedAt = at;
  recordEvent(tx, ownerOf(dispute), 'dispute.updated', disputeEventPayload(dispute), at);
  return dispute;
}

/**
 * The submitted evidence of a real acquirer's dispute, for that acquirer, keyed by the submission (so a
 * retried call sends it once); null when there is nothing to send (not the acquirer's, not under review).
 */
export async function evidenceForAcquirer(em: EntityManager, disputeId: string): Promise<(EvidenceSubmission & { submittedAt: Date }) | null> {
  const dispute = await em.findOne(Dispute, { id: disputeId });
  if (!dispute?.acquirerDisputeId || !isUnderReview(dispute.status) || !dispute.submittedAt) return null;
  return {
    disputeId: dispute.id,
    acquirerDisputeId: dispute.acquirerDisputeId,
    livemode: dispute.livemode,
    evidence: dispute.evidence,
    submittedAt: dispute.submittedAt,
    idempotencyKey: `${dispute.id}-evidence-${dispute.submittedAt.getTime()}`,
  };
}

/**
 * The acquirer refused the evidence of the submission `submittedAt` (Stripe answering `disputes.update`
 * with an error): the dispute needs a response again (`needs_response`, `warning_needs_response` for an
 * inquiry), not `under_review` with nothing under review there, with the acquirer's reason on it
 * (`evidenceRefusal`) and `dispute.updated` for the merchant. Only while that submission is the one under
 * review, so a retried call, or a newer submission, moves nothing. Returns whether it moved.
 */
export async function evidenceRefused(tx: EntityManager, disputeId: string, submittedAt: Date, reason: string, at: Date = new Date()): Promise<boolean> {
  requireTransaction(tx);
  const dispute = await tx.findOne(Dispute, { id: disputeId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!dispute || !isUnderReview(dispute.status) || dispute.submittedAt?.getTime() !== submittedAt.getTime()) return false;
  dispute.status = dispute.status === 'warning_under_review' ? 'warning_needs_response' : 'needs_response';
  dispute.submittedAt = null;
  dispute.evidenceRefusal = reason;
  dispute.updatedAt = at;
  recordEvent(tx, ownerOf(dispute), 'dispute.updated', disputeEventPayload(dispute), at);
  return true;
}

/** The acquirer's statuses for a dispute it has closed. */
const ACQUIRER_CLOSED = new Set(['won', 'lost', 'warning_closed']);

/**
 * A real acquirer's dispute that the merchant accepted here and the acquirer has not closed (as its
 * events last said), to be told; null otherwise. A dispute won here (an operator entered the acquirer's
 * decision) is never told: closing it at the acquirer is conceding it.
 */
export async function acceptedAtAcquirer(em: EntityManager, disputeId: string): Promise<AcquirerDisputeReference | null> {
  const dispute = await em.findOne(Dispute, { id: disputeId });
  if (!dispute?.acquirerDisputeId || !isClosed(dispute.status) || dispute.status === 'won' || ACQUIRER_CLOSED.has(dispute.acquirerStatus ?? '')) return null;
  return { disputeId: dispute.id, acquirerDisputeId: dispute.acquirerDisputeId, livemode: dispute.livemode };
}
