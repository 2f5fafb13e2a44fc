/**
 * What other code uses of the outbox module (the transactional outbox, its dispatcher and relay, workflow
 * starts as messages): the rest is the module's own, and eslint.config.js refuses an import of it from
 * outside (docs/architecture.md, "A module's face").
 */
export { outboxEntities } from './entities.js';
export { claimForFastPath, createOutboxDispatcher } from './outbox.dispatcher.js';
export type { OutboxDispatcher } from './outbox.dispatcher.js';
export { OutboxEntry } from './outbox.entity.js';
export type { OutboxMessage } from './outbox.entity.js';
export { startOutboxRelay } from './outbox.relay.js';
export { workflowSignal, workflowSignalWithStart, workflowStart } from './workflow-message.rules.js';
export type { WorkflowSignal, WorkflowSignalWithStart, WorkflowStart } from './workflow-message.rules.js';
export { startWorkflowOnce } from './workflow-message.transport.js';
