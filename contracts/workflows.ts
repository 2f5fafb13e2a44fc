/**
 * The names of the workflows the worker registers (its `workflows/index.ts` exports), which an outbox
 * row stores and the relay starts by. A names-only module, so the service's outbox types need not load
 * the workflows (and through their activity types the service again): test/ops/workflow-names.test.ts
 * holds this list equal to the exports.
 */
export const WORKFLOW_NAMES = [
  'checkoutWorkflow',
  'sessionExpiryWorkflow',
  'purgeIdempotencyKeysWorkflow',
  'withdrawalWorkflow',
  'refundWorkflow',
  'webhookDeliveryWorkflow',
  'reserveReleaseWorkflow',
  'retentionWorkflow',
  'disputeWorkflow',
] as const;

export type WorkflowName = (typeof WORKFLOW_NAMES)[number];

export const isWorkflowName = (name: string): name is WorkflowName => (WORKFLOW_NAMES as readonly string[]).includes(name);
