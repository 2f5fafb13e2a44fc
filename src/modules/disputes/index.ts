/**
 * What other code uses of the disputes module (disputes, their evidence, the acquirer's notices and
 * decisions): the rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export {
  AcquirerReportConflict,
  acceptedAtAcquirer,
  applyAcquirerReport,
  evidenceForAcquirer,
  evidenceRefused,
} from './dispute-acquirer.lifecycle.js';
export type { AcquirerStage } from './dispute-acquirer.lifecycle.js';
export type { Dispute, Evidence, EvidenceField } from './dispute.entity.js';
export {
  decideDispute,
  expireDispute,
  openDispute,
  progressOf,
  remindEvidenceDue,
  reviewEvidence,
} from './dispute.lifecycle.js';
export { enterDisputeDecision, recordDisputeNotice } from './dispute.operator.js';
export { disputeBlockingRefund, disputeIdOfSession } from './dispute.queries.js';
export { disputeOperations } from './dispute.routes.js';
export { disputeEventPayloads } from './dispute.schemas.js';
export { announceDispute, disputeChanged, disputeWorkflowStart } from './dispute.start.js';
export { disputeView } from './dispute.view.js';
export { disputesEntities } from './entities.js';
