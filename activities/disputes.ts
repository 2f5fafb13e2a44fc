import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { DomainError } from '../src/domain/errors.js';
import {
  decideDispute,
  expireDispute,
  openDispute,
  progressOf,
  remindEvidenceDue,
  reviewEvidence,
  acceptedAtAcquirer,
  evidenceForAcquirer,
  evidenceRefused,
  type Dispute,
} from '../src/modules/disputes/index.js';
import type { DisputeNotice, DisputeProgress, Outcome } from '../contracts/disputes.js';
import { AcquirerRefusedError, type PaymentProcessor } from '../src/modules/processor/index.js';
import { ACQUIRER_REFUSED } from '../contracts/failure-types.js';
import { declined, withHeartbeats } from './processor-call.js';

export interface DisputeActivityDeps {
  orm: MikroORM;
  /** The acquirer and card network, chosen where the process is wired (src/main/payment-processor.ts). */
  processor: PaymentProcessor;
}

/**
 * The dispute workflow's steps. Each is one transaction under the business's balance lock, conditional
 * on the dispute's status, so a retry or a replay moves nothing twice; each answers the dispute's
 * progress afterwards (null: there is no such dispute). The two that reach a real acquirer (the evidence
 * sent, the acceptance told) call it outside any transaction, keyed so a retry repeats nothing.
 */
export function createDisputeActivities(deps: DisputeActivityDeps) {
  const { processor } = deps;
  const inTransaction = <T>(work: (tx: EntityManager) => Promise<T>): Promise<T> => deps.orm.em.fork().transactional(work);
  const progress = (dispute: Dispute | null) => (dispute ? progressOf(dispute) : null);
  /** The acquirer's refusal (the dispute no longer takes evidence there): not retried; the workflow says so. */
  const refusedOr = async (call: Promise<void>) => {
    try {
      await withHeartbeats(call);
    } catch (err) {
      if (err instanceof AcquirerRefusedError) throw declined(ACQUIRER_REFUSED, err.message);
      throw err;
    }
  };

  return {
    /**
     * Opens the dispute the notice reports (money withdrawn for a chargeback), or finds it opened already
     * (by the admin CLI or the acquirer's event that recorded it). Null when the acquirer reverses the
     * notice (the session was refunded meanwhile) or the session has another dispute: nothing for this
     * workflow to do.
     */
    async openDispute(notice: DisputeNotice, responseWindowMs: number): Promise<DisputeProgress | null> {
      try {
        const { dispute } = await inTransaction((tx) => openDispute(tx, notice, { responseWindowMs }));
        return dispute.id === notice.disputeId ? progressOf(dispute) : null;
      } catch (err) {
        if (err instanceof DomainError) return null;
        throw err;
      }
    },

    /** An operator's decision (or the network's): won, lost, or an inquiry escalated with a fresh window. */
    async decideDispute(disputeId: string, outcome: Outcome, responseWindowMs: number): Promise<DisputeProgress | null> {
      return progress(await inTransaction((tx) => decideDispute(tx, disputeId, outcome, { responseWindowMs })));
    },

    /**
     * The network's review of the submitted evidence: the simulator decides by its test phrases (test mode,
     * and live mode where live payments are simulated); otherwise it stays under review for the acquirer.
     */
    async reviewEvidence(disputeId: string, responseWindowMs: number): Promise<DisputeProgress | null> {
      return progress(await inTransaction((tx) => reviewEvidence(tx, disputeId, (review) => processor.reviewDisputeEvidence(review), { responseWindowMs })));
    },

    /** Nothing submitted by `evidenceDueBy`: lost, or an inquiry closed. */
    async expireDispute(disputeId: string): Promise<DisputeProgress | null> {
      return progress(await inTransaction((tx) => expireDispute(tx, disputeId)));
    },

    /** `dispute.evidence_due_soon`, once a window, while nothing has been submitted. */
    async remindEvidenceDue(disputeId: string): Promise<DisputeProgress | null> {
      return progress(await inTransaction((tx) => remindEvidenceDue(tx, disputeId)));
    },

    /**
     * The merchant's submitted evidence, sent to the acquirer that reported the dispute (Stripe:
     * `disputes.update` with `submit: true`), keyed by the dispute and its submission, so a retry sends it
     * once. Nothing while the dispute is not under review with evidence (a submission superseded).
     */
    async submitEvidenceToAcquirer(disputeId: string): Promise<void> {
      const submission = await evidenceForAcquirer(deps.orm.em.fork(), disputeId);
      if (!submission) return;
      try {
        await withHeartbeats(processor.submitDisputeEvidence(submission));
      } catch (err) {
        if (!(err instanceof AcquirerRefusedError)) throw err;
        // Refused for good: the dispute needs a response again, the reason on it, and the merchant told,
        // rather than `under_review` with nothing under review at the acquirer. The workflow shows it too.
        await inTransaction((tx) => evidenceRefused(tx, disputeId, submission.submittedAt, err.message));
        throw declined(ACQUIRER_REFUSED, err.message);
      }
    },

    /**
     * Tells the acquirer the merchant accepted the dispute (Stripe: `disputes.close`), when the dispute is
     * closed here and the acquirer has not closed it on its side.
     */
    async acceptDisputeAtAcquirer(disputeId: string): Promise<void> {
      const accepted = await acceptedAtAcquirer(deps.orm.em.fork(), disputeId);
      if (accepted) await refusedOr(processor.acceptDispute(accepted));
    },
  };
}
export type DisputeActivities = ReturnType<typeof createDisputeActivities>;
