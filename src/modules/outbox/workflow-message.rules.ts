/**
 * The outbox's messages to Temporal, as values: a workflow start or a signal, built against the workflow
 * or signal it names so the compiler checks the arguments. No I/O here; workflow-message.transport.ts
 * sends them.
 */
import type { SignalDefinition } from '@temporalio/common';
import type { SearchAttributeValues } from '../../../contracts/search-attributes.js';
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
 */
export interface WorkflowSignalWithStart extends Omit<WorkflowStart, 'kind'> {
  kind: 'workflow.signalWithStart';
  signalName: string;
  signalArgs: unknown[];
}

/** Builds a signal-with-start by the workflow and the signal it names, so both argument lists are checked. */
export function workflowSignalWithStart<W extends Workflow, Args extends unknown[]>(
  workflow: W,
  signal: SignalDefinition<Args>,
  start: Omit<WorkflowStart, 'kind' | 'workflowType' | 'args'> & { args: Parameters<W>; signalArgs: Args },
): WorkflowSignalWithStart {
  const { kind: _start, ...message } = workflowStart(workflow, start);
  return { kind: 'workflow.signalWithStart', ...message, signalName: signal.name, signalArgs: start.signalArgs };
}

/** Builds a signal by its definition (imported from the workflow), so `args` is checked against it. */
export function workflowSignal<Args extends unknown[]>(signal: SignalDefinition<Args>, to: { workflowId: string; args: Args }): WorkflowSignal {
  return { kind: 'workflow.signal', workflowId: to.workflowId, signalName: signal.name, args: to.args };
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
