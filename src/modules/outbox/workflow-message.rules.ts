/**
 * The outbox's messages to Temporal, as values: a workflow start or a signal, built against the contract
 * of the workflow or signal it names (contracts/) so the compiler checks the arguments. No I/O here;
 * workflow-message.transport.ts sends them.
 */
import type { SignalDefinition } from '@temporalio/common';
import type { SearchAttributeValues } from '../../../contracts/search-attributes.js';
import type { WorkflowContract, WorkflowFunction, WorkflowName } from '../../../contracts/workflows.js';

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
  /**
   * When the run's first workflow task is due (ISO time): started now, with Temporal's start delay until
   * then, so a run whose first act is to wait (a reserve's release) costs no task, no timer and no place in
   * a worker's cache meanwhile. Absent, or past when the relay sends it: at once.
   */
  startAt?: string;
}

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

/**
 * A signal that starts its workflow when no run is open, as the outbox stores it: for a record that must
 * have an owner whether or not its workflow still runs (a payment left in doubt after its run closed).
 * No `startAt`: the signal is for a run now, and a field the transport would not send is not stored.
 */
export interface WorkflowSignalWithStart extends Omit<WorkflowStart, 'kind' | 'startAt'> {
  kind: 'workflow.signalWithStart';
  signalName: string;
  signalArgs: unknown[];
}

/** Builds a signal-with-start by the workflow's contract and the signal it names, so both argument lists are checked. */
export function workflowSignalWithStart<F extends WorkflowFunction, Args extends unknown[]>(
  workflow: WorkflowContract<F>,
  signal: SignalDefinition<Args>,
  start: Omit<WorkflowStart, 'kind' | 'workflowType' | 'args' | 'startAt'> & { args: Parameters<F>; signalArgs: Args },
): WorkflowSignalWithStart {
  const { kind: _start, ...message } = workflowStart(workflow, start);
  return { kind: 'workflow.signalWithStart', ...message, signalName: signal.name, signalArgs: start.signalArgs };
}

/** Builds a signal by its definition (from the workflow's contract), so `args` is checked against it. */
export function workflowSignal<Args extends unknown[]>(signal: SignalDefinition<Args>, to: { workflowId: string; args: Args }): WorkflowSignal {
  return { kind: 'workflow.signal', workflowId: to.workflowId, signalName: signal.name, args: to.args };
}

/**
 * Builds the start of the workflow a contract names (contracts/), so the compiler checks `args` against the
 * workflow's parameters without the service loading workflows/; the message stores its name, by which the
 * worker registers it (a contract names only such workflows: `WorkflowName`).
 */
export function workflowStart<F extends WorkflowFunction>(
  workflow: WorkflowContract<F>,
  start: Omit<WorkflowStart, 'kind' | 'workflowType' | 'args'> & { args: Parameters<F> },
): WorkflowStart {
  return { kind: 'workflow.start', workflowType: workflow.name, ...start };
}
