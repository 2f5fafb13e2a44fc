import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import * as registeredWorkflows from '../../../workflows/index.js';
import { toSearchAttributePairs, type SearchAttributeValues } from '../../../contracts/search-attributes.js';

/**
 * The table of workflows: the worker's workflow exports, by the name Temporal starts each one by (the
 * worker registers every export under its name). A start names its workflow by reference, so the
 * compiler checks `args` against that workflow's parameters and go-to-definition leads to it.
 */
export const workflows = registeredWorkflows;
export type Workflows = typeof registeredWorkflows;
export type WorkflowName = keyof Workflows;
type Workflow = Workflows[WorkflowName];

/** A workflow start as the outbox stores it (JSON in `outbox.message`); the shape rows already have. */
export interface WorkflowStart<K extends WorkflowName = WorkflowName> {
  kind: 'workflow.start';
  workflowType: K;
  workflowId: string;
  args: Parameters<Workflows[K]>;
  searchAttributes?: SearchAttributeValues;
  summary?: string;
}

/** Any workflow's start: a union over the table, so checking `workflowType` narrows `args`. */
export type AnyWorkflowStart = { [K in WorkflowName]: WorkflowStart<K> }[WorkflowName];

/**
 * Builds the start of `workflow`, one of the table's functions; the message stores its name (as the SDK
 * does for a function reference). A function the worker does not register is refused here, not left to
 * fail in the relay.
 */
export function workflowStart<W extends Workflow>(
  workflow: W,
  start: Omit<WorkflowStart, 'kind' | 'workflowType' | 'args'> & { args: Parameters<W> },
): AnyWorkflowStart {
  const workflowType = workflow.name as WorkflowName;
  if (workflows[workflowType] !== workflow) throw new Error(`${workflow.name} is not a workflow the worker registers (workflows/index.ts)`);
  return { kind: 'workflow.start', workflowType, ...start } as AnyWorkflowStart;
}

/**
 * Starts a workflow once. REJECT_DUPLICATE makes a second start fail as "already started" even after the
 * first run has finished (a row dispatched again, a repeated fan-out), so no start ever makes a second
 * run; that answer is harmless and returns false. True when this call started the run.
 */
export async function startWorkflowOnce(temporal: Client, taskQueue: string, start: WorkflowStart): Promise<boolean> {
  try {
    await temporal.workflow.start(start.workflowType, {
      workflowId: start.workflowId,
      taskQueue,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: start.args,
      typedSearchAttributes: toSearchAttributePairs(start.searchAttributes ?? {}),
      staticSummary: start.summary,
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
