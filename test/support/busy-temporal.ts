import type { Client } from '@temporalio/client';

/**
 * The stack's Temporal client as a pay call sees it when the server is too busy to say whether it holds an
 * update: every pay goes through, but each ask after a silent deadline (`pollWorkflowExecutionUpdate`) times
 * out, so the call cannot learn that its update was accepted and fences its attempt off.
 */
export function tooBusyToSay(temporal: Client): Client {
  return {
    withDeadline: temporal.withDeadline.bind(temporal),
    workflow: temporal.workflow,
    workflowService: { pollWorkflowExecutionUpdate: () => Promise.reject(new Error('Deadline exceeded (the server too busy to answer)')) },
    options: temporal.options,
  } as unknown as Client;
}
