/** How the outbox's messages reach Temporal: each call is safe to repeat, as a row may be dispatched twice. */

import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { toSearchAttributePairs } from '../../../contracts/search-attributes.js';
import type { WorkflowSignal, WorkflowSignalWithStart, WorkflowStart } from './workflow-message.rules.js';

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
      ...startDelayOf(start.startAt),
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

/** Temporal's start delay until `startAt`, measured when the start is sent; none once it is due. */
export function startDelayOf(startAt: string | undefined, now = Date.now()): { startDelay?: number } {
  const delayMs = startAt ? Date.parse(startAt) - now : 0;
  return delayMs > 0 ? { startDelay: delayMs } : {};
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
 * Signals the workflow, starting a run first when none is open, even after a closed one (a record that
 * needs its owner again). Safe to repeat: the signal's handler is idempotent.
 */
export async function signalWithStart(temporal: Client, taskQueue: string, message: WorkflowSignalWithStart): Promise<void> {
  await temporal.workflow.signalWithStart(message.workflowType, {
    workflowId: message.workflowId,
    taskQueue,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    args: message.args,
    signal: message.signalName,
    signalArgs: message.signalArgs,
    typedSearchAttributes: toSearchAttributePairs(message.searchAttributes ?? {}),
    staticSummary: message.summary,
  });
}
