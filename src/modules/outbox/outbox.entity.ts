import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { WorkflowStart, WorkflowSignal, WorkflowSignalWithStart } from './workflow-message.rules.js';

/**
 * Work that must follow a committed state change: starting or signalling a workflow, or fanning an event
 * out to webhook endpoints. Rows are written in the same transaction as the change, then dispatched; a relay
 * re-dispatches whatever a crash left behind, and deterministic workflow ids make a second dispatch
 * harmless. A workflow start is typed against the workflow it names (`workflowStart`, workflow-message.rules.ts).
 */
export type OutboxMessage = WorkflowStart | WorkflowSignal | WorkflowSignalWithStart | EventFanout;

/** An event to send to its business's endpoints; `businessId` (absent on rows written before it) keeps the fan-outs of one move's events in order. */
export interface EventFanout {
  kind: 'event.fanout';
  eventId: string;
  businessId?: string;
}

export const OutboxEntry = defineEntity({
  name: 'OutboxEntry',
  tableName: 'outbox',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    message: p.json<OutboxMessage>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    dispatchedAt: p.datetime().nullable(),
    attempts: p.integer().default(0),
    claimedUntil: p.datetime().nullable(),
    lastError: p.text().nullable(),
  },
});
export type OutboxEntry = InferEntity<typeof OutboxEntry>;
