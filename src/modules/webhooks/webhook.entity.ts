import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';
import { Event } from '../events/index.js';

export const DISABLED_REASONS = ['manual', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** A merchant's HTTPS receiver. Deleting one only marks it, so its delivery log stays readable. */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    livemode: p.boolean(),
    url: p.string().length(2048),
    /** As the merchant wrote them (aliases and `*` included); matched by `subscribesTo`. */
    events: p.json<string[]>(),
    enabled: p.boolean().default(true),
    description: p.string().length(256).nullable(),
    /** AES-256-GCM sealed (secret-box.crypto.ts); never shown after creation or rotation. */
    secretSealed: p.text(),
    /** The secret before the last rotation, which still signs until `previousSecretExpiresAt`. */
    previousSecretSealed: p.text().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    /** Why `enabled` is false: the merchant's switch, or the automatic disabling of a failing endpoint. */
    disabledReason: p.string().$type<DisabledReason>().nullable(),
    disabledAt: p.datetime().nullable(),
    /** The first failed attempt since the last success; null while the endpoint succeeds. */
    failingSince: p.datetime().nullable(),
    /** At most this many attempts a second to this endpoint (null: no limit). */
    rateLimitPerSecond: p.integer().nullable(),
    /** No attempt goes out before this: the next throttle slot, or a receiver's Retry-After. */
    nextAttemptNotBefore: p.datetime().nullable(),
    /** When the last attempt to a throttled endpoint began: the next starts 1/rate s after it at the soonest. */
    lastAttemptStartedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  },
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpoint>;

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event to one endpoint, driven by the workflow `webhook-delivery-<id>`. The fan-out creates
 * generation 0; each manual retry a new generation. `body` is the exact bytes every attempt sends.
 */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p.string().primary(),
    eventId: () => p.manyToOne(Event).mapToPk().fieldName('event_id'),
    /** Its event's `createdAt`: recovery's window is on it (`webhook_deliveries_failed_by_event_idx`). */
    eventCreatedAt: p.datetime(),
    endpointId: () => p.manyToOne(WebhookEndpoint).mapToPk().fieldName('endpoint_id'),
    businessId: p.string(),
    livemode: p.boolean(),
    generation: p.integer().default(0),
    status: p.string().$type<DeliveryStatus>(),
    body: p.text(),
    attemptCount: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;

/** One HTTP POST of a delivery, as the receiver answered it. */
export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    deliveryId: () => p.manyToOne(WebhookDelivery).mapToPk().fieldName('delivery_id'),
    attemptNumber: p.integer(),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    durationMs: p.integer(),
    responseBody: p.text().nullable(),
    error: p.text().nullable(),
    succeeded: p.boolean(),
  },
});
export type WebhookAttempt = InferEntity<typeof WebhookAttempt>;
