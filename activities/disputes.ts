import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { DomainError } from '../src/domain/errors.js';
import { decideDispute, expireDispute, openDispute, progressOf, remindEvidenceDue, type DisputeNotice, type DisputeProgress } from '../src/modules/disputes/dispute.lifecycle.js';
import { Dispute } from '../src/modules/disputes/dispute.entity.js';
import { isUnderReview, type Outcome } from '../contracts/disputes.js';
import type { PaymentProcessor } from '../src/modules/processor/processor.port.js';
import { simulatorProcessor } from '../src/modules/processor/charges.simulator.js';

export type { DisputeNotice, DisputeProgress, Outcome };

export interface DisputeActivityDeps {
  orm: MikroORM;
  /** The acquirer and card network; the simulator unless a test or an adapter provides another. */
  processor?: PaymentProcessor;
}

/**
 * The dispute workflow's steps. Each is one transaction under the business's balance lock, conditional
 * on the dispute's status, so a retry or a replay moves nothing twice; each answers the dispute's
 * progress afterwards (null: there is no such dispute).
 */
export function createDisputeActivities(deps: DisputeActivityDeps) {
  const processor = deps.processor ?? simulatorProcessor;
  const inTransaction = <T>(work: (tx: EntityManager) => Promise<T>): Promise<T> => deps.orm.em.fork().transactional(work);
  const progress = (dispute: Dispute | null) => (dispute ? progressOf(dispute) : null);

  return {
    /**
     * Opens the dispute the notice reports (money withdrawn for a chargeback), or finds it opened already
     * (by the admin CLI that recorded it). Null when the acquirer reverses the notice (the session was
     * refunded meanwhile) or the session has another dispute: nothing for this workflow to do.
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
      return progress(
        await inTransaction(async (tx) => {
          const dispute = await tx.findOne(Dispute, { id: disputeId });
          if (!dispute || !isUnderReview(dispute.status)) return dispute;
          const outcome = processor.reviewDisputeEvidence({ disputeId: dispute.id, livemode: dispute.livemode, evidence: dispute.evidence });
          return outcome ? decideDispute(tx, disputeId, outcome, { responseWindowMs }) : dispute;
        }),
      );
    },

    /** Nothing submitted by `evidenceDueBy`: lost, or an inquiry closed. */
    async expireDispute(disputeId: string): Promise<DisputeProgress | null> {
      return progress(await inTransaction((tx) => expireDispute(tx, disputeId)));
    },

    /** `dispute.evidence_due_soon`, once a window, while nothing has been submitted. */
    async remindEvidenceDue(disputeId: string): Promise<DisputeProgress | null> {
      return progress(await inTransaction((tx) => remindEvidenceDue(tx, disputeId)));
    },
  };
}
export type DisputeActivities = ReturnType<typeof createDisputeActivities>;
