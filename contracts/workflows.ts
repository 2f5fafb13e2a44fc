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

/** A workflow function's shape: what a start passes, what its run answers. */
export type WorkflowFunction = (...args: never[]) => Promise<unknown>;

/**
 * A workflow as the service starts it: the name the worker registers it by and, in its type only, the
 * function's shape, so a start's arguments are checked by the compiler without loading workflows/, which
 * the worker alone loads. test/ops/workflow-names.test.ts holds each contract to the function exported
 * under its name.
 */
export interface WorkflowContract<F extends WorkflowFunction> {
  readonly name: WorkflowName;
  /** Never set: it carries the function's type. */
  readonly fn?: F;
}

export const workflowContract = <F extends WorkflowFunction>(name: WorkflowName): WorkflowContract<F> => ({ name });
