import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';

export const EVENT_TYPES = [
  'checkout.succeeded',
  'checkout.failed',
  'refund.created',
  'refund.completed',
  'refund.failed',
  'withdrawal.paid',
  'withdrawal.failed',
  'dispute.created',
  'dispute.updated',
  'dispute.evidence_due_soon',
  'dispute.funds_withdrawn',
  'dispute.funds_reinstated',
  'dispute.closed',
  'webhook_endpoint.disabled',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * An event a business may receive by webhook. Written in the transaction of the change it reports. Its
 * row also has a `sequence`, drawn by the database at insert (not mapped here: nothing writes it, and
 * the fan-out reads it with the row it sends), which orders a record's events as they happened.
 */
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    livemode: p.boolean(),
    type: p.string().$type<EventType>(),
    payload: p.json<Record<string, unknown>>(),
    /** A ping sent by `POST /api/webhooks/:id/test` to one endpoint, not something that happened. */
    test: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Event = InferEntity<typeof Event>;
