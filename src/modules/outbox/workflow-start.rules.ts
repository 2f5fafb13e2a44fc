import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import { toSearchAttributePairs, type SearchAttributeValues } from '../../../contracts/search-attributes.js';
import { isWorkflowName, type WorkflowName } from '../../../contracts/workflows.js';


/** A workflow function of workflows/; its parameters are what a start must pass. */
type Workflow = (...args: never[]) => Promise<unknown>;

/**
 * A workflow start as the outbox stores it (JSON in `outbox.message`); the shape rows already have. Its
 * `args` were checked against the workflow's parameters where it was made (`workflowStart`). The type
 * names the workflows by name only (contracts/workflows.ts), so the outbox does not load the workflows.
 */
export interface WorkflowStart {
  kind: 'workflow.start';
  workflowType: WorkflowName;
  workflowId: string;
  args: unknown[];
  searchAttributes?: SearchAttributeValues;
  summary?: string;
}

/** Any workflow's start, as the outbox message types it. */
export type AnyWorkflowStart = WorkflowStart;

/**
 * A signal to a running workflow, as the outbox stores it: news of a change a request committed, which
 * the workflow must hear even if the process that made the change dies before it can say so.
 */
export interface WorkflowSignal {
  kind: 'workflow.signal';
  workflowId: string;
  signalName: string;
  args: unknown[];
}

/** Builds a signal by its definition (imported from the workflow), so `args` is checked against it. */
export function workflowSignal<Args extends unknown[]>(signal: SignalDefinition<Args>, to: { workflowId: string; args: Args }): WorkflowSignal {
  return { kind: 'workflow.signal', workflowId: to.workflowId, signalName: signal.name, args: to.args };
}

/**
 * Delivers a stored signal. A workflow that has closed needs no news (its last step read the database,
 * which holds the change), so that counts as delivered; one not started yet (its start is another outbox
 * row still on its way) throws, and the relay tries again.
 */
export async function signalWorkflow(temporal: Client, message: WorkflowSignal): Promise<void> {
  const handle = temporal.workflow.getHandle(message.workflowId);
  try {
    await handle.signal(message.signalName, ...message.args);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    const closed = await handle.describe().then(
      (run) => run.status.name !== 'RUNNING',
      (missing) => {
        if (missing instanceof WorkflowNotFoundError) return false;
        throw missing;
      },
    );
    if (!closed) throw err;
  }
}

/**
 * Builds the start of `workflow`, a workflow function the service imports by reference (so the compiler
 * checks `args` against its parameters, and go-to-definition leads to it); the message stores its name,
 * as the SDK does for a function reference. A function the worker does not register is refused here,
 * not left to fail in the relay.
 */
export function workflowStart<W extends Workflow>(
  workflow: W,
  start: Omit<WorkflowStart, 'kind' | 'workflowType' | 'args'> & { args: Parameters<W> },
): WorkflowStart {
  if (!isWorkflowName(workflow.name)) throw new Error(`${workflow.name} is not a workflow the worker registers (workflows/index.ts)`);
  return { kind: 'workflow.start', workflowType: workflow.name, ...start };
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
