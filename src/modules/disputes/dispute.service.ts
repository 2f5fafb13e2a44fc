import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { requireTransaction } from '../../db/transaction.js';
import { DomainError } from '../../domain/errors.js';
import type { AppDeps } from '../app-deps.js';
import type { Caller } from '../businesses/index.js';
import { recordEvent } from '../events/index.js';
import { claimForFastPath, OutboxEntry } from '../outbox/index.js';
import { Dispute, type Evidence } from './dispute.entity.js';
import { acceptedStatus, awaitsResponse, disputeEventPayload, isClosed, mergeEvidence, submittedStatus } from './dispute.rules.js';
import { disputeChanged } from './dispute.start.js';
import { ownerOf } from '../ledger/index.js';

/**
 * What a merchant does to a dispute through the API, in the request's transaction: save or submit
 * evidence, or accept the dispute. Each locks the dispute's row and is conditional on its status; a
 * change the dispute's workflow must know of (a submission starts the network's review, an acceptance
 * ends the process) is signalled through the outbox, claimed for the request's fast path, so the news
 * survives a crash between the commit and the signal.
 */


async function lockedDispute(tx: EntityManager, caller: Caller, id: string): Promise<Dispute> {
  requireTransaction(tx);
  const dispute = await tx.findOne(Dispute, { id, ...ownerOf(caller) }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!dispute) throw new DomainError('dispute_not_found');
  return dispute;
}

const signal = (tx: EntityManager, dispute: Dispute, at: Date) =>
  claimForFastPath(tx.create(OutboxEntry, { createdAt: at, message: disputeChanged(dispute) }));

/**
 * Saves evidence (the fields given; null clears one) and, with `submit`, sends it: the dispute moves to
 * `under_review` (`warning_under_review`) and the network reviews it. Refused once submitted or closed,
 * from `evidenceDueBy` on, and, for a dispute at a real acquirer, when that acquirer would refuse it. `dispute.updated` when anything changed.
 */
export async function saveEvidence(
  tx: EntityManager,
  caller: Caller,
  id: string,
  input: Partial<Evidence> & { submit: boolean },
  acquirerRules: AppDeps['acquirerEvidenceRules'],
  at: Date = new Date(),
): Promise<{ dispute: Dispute; outbox: OutboxEntry | null }> {
  const dispute = await lockedDispute(tx, caller, id);
  if (!awaitsResponse(dispute.status)) throw new DomainError('dispute_evidence_not_accepted', { params: { status: dispute.status } });
  if (at.getTime() >= dispute.evidenceDueBy.getTime()) {
    throw new DomainError('dispute_evidence_past_due', { params: { evidenceDueBy: dispute.evidenceDueBy.toISOString() } });
  }
  const { submit, ...fields } = input;
  const evidence = mergeEvidence(dispute.evidence, fields);
  // A dispute at a real acquirer takes only what that acquirer takes: refused here, by field, rather than
  // told `under_review` and refused there later (Stripe's limits are tighter than the API's 20,000).
  const problems = dispute.acquirer ? (acquirerRules[dispute.acquirer]?.(evidence) ?? []) : [];
  if (problems.length) throw new DomainError('validation_failed', { errors: problems });
  const changed = submit || JSON.stringify(evidence) !== JSON.stringify(mergeEvidence(dispute.evidence, {}));
  if (!changed) return { dispute, outbox: null };
  dispute.evidence = evidence;
  dispute.updatedAt = at;
  if (submit) {
    dispute.status = submittedStatus(dispute.status);
    dispute.submittedAt = at;
    dispute.evidenceRefusal = null;
  }
  recordEvent(tx, ownerOf(caller), 'dispute.updated', disputeEventPayload(dispute), at);
  return { dispute, outbox: submit ? signal(tx, dispute, at) : null };
}

/** The merchant accepts the dispute: a chargeback is `lost` (its money stays with the cardholder), an inquiry `warning_closed`. */
export async function closeDispute(tx: EntityManager, caller: Caller, id: string, at: Date = new Date()): Promise<{ dispute: Dispute; outbox: OutboxEntry }> {
  const dispute = await lockedDispute(tx, caller, id);
  if (isClosed(dispute.status)) throw new DomainError('dispute_not_closable', { params: { status: dispute.status } });
  dispute.status = acceptedStatus(dispute.status);
  dispute.closedAt = at;
  dispute.updatedAt = at;
  recordEvent(tx, ownerOf(caller), 'dispute.closed', disputeEventPayload(dispute), at);
  return { dispute, outbox: signal(tx, dispute, at) };
}
