import { z } from 'zod';
import { pageMetaSchema, prefixedId, timestamp } from '../../http/envelope.js';
import { EVENT_TYPES } from '../events/index.js';
import { DELIVERY_STATUSES, DISABLED_REASONS } from './webhook.entity.js';
import { canonicalEventType, EVENT_ALIASES, SUBSCRIBABLE_EVENTS } from './event-subscriptions.rules.js';
import { queryInstant } from '../../http/validate.js';

const URL_NOT_HTTPS = 'URL must be HTTPS';

/** The spec's one rule for webhook URLs, with its exact message (also for a value that is no URL at all). */
const httpsUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'URL is required' : URL_NOT_HTTPS) })
  .max(2048, { error: 'URL must be at most 2048 characters' })
  .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:', { error: URL_NOT_HTTPS })
  .refine((value) => !URL.canParse(value) || (!new URL(value).username && !new URL(value).password), {
    error: 'URL must not contain credentials',
  })
  // The scheme is case-insensitive; it is stored lower-case, the rest exactly as the merchant wrote it.
  .transform((value) => value.replace(/^https:/i, 'https:'))
  .meta({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]://', example: 'https://example.com/webhooks/payments' });

const events = z
  .array(
    z
      .string()
      .refine((name) => SUBSCRIBABLE_EVENTS.includes(name), {
        error: (issue) => `Unknown event type "${String(issue.input)}"`,
      })
      .meta({ enum: [...SUBSCRIBABLE_EVENTS] }),
    { error: 'Events must be a list of event types' },
  )
  .min(1, { error: 'At least one event type is required' })
  .max(SUBSCRIBABLE_EVENTS.length, { error: 'Too many event types' })
  // Duplicates say nothing new; the list is kept in the merchant's order.
  .transform((list) => [...new Set(list)]);

const description = z.string().max(256, { error: 'Description must be at most 256 characters' }).nullable();

const RATE_LIMIT_MESSAGE = 'rateLimitPerSecond must be an integer from 1 to 1000';
/** Attempts a second to the endpoint at most; null (or absent on create) for no limit. */
const rateLimitPerSecond = z
  .number()
  .int()
  .min(1, { error: RATE_LIMIT_MESSAGE })
  .max(1000, { error: RATE_LIMIT_MESSAGE })
  .nullable();

/** `enabled` (create response) and `isActive` (update) name one switch; a body may not set them apart. */
const switchesAgree = (body: { enabled?: boolean; isActive?: boolean }, ctx: z.RefinementCtx) => {
  if (body.enabled !== undefined && body.isActive !== undefined && body.enabled !== body.isActive) {
    ctx.addIssue({ code: 'custom', path: ['isActive'], message: 'isActive and enabled must agree' });
  }
};
/** The same rule for the API document: both given means both alike. */
const switchesAgreeJsonSchema = {
  anyOf: [
    { not: { required: ['enabled', 'isActive'] } },
    { properties: { enabled: { const: true }, isActive: { const: true } } },
    { properties: { enabled: { const: false }, isActive: { const: false } } },
  ],
};

export const createEndpointInput = z
  .strictObject({
    url: httpsUrl,
    events,
    description: description.optional(),
    enabled: z.boolean().optional(),
    isActive: z.boolean().optional(),
    rateLimitPerSecond: rateLimitPerSecond.optional(),
  })
  .superRefine(switchesAgree)
  .meta(switchesAgreeJsonSchema);
export type CreateEndpointInput = z.output<typeof createEndpointInput>;

/** PUT and PATCH alike: every member optional; `enabled` is accepted beside the spec's `isActive`. */
export const updateEndpointInput = z
  .strictObject({
    url: httpsUrl.optional(),
    events: events.optional(),
    isActive: z.boolean().optional(),
    enabled: z.boolean().optional(),
    description: description.optional(),
    rateLimitPerSecond: rateLimitPerSecond.optional(),
  })
  .superRefine(switchesAgree)
  .meta(switchesAgreeJsonSchema);
export type UpdateEndpointInput = z.output<typeof updateEndpointInput>;

export const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  page: z.coerce.number().int().min(1).default(1),
});

const isoDate = queryInstant();

export const eventLogQuery = pageQuery.extend({
  eventType: z
    .string()
    .transform((name, ctx) => {
      const type = canonicalEventType(name);
      if (!type) ctx.addIssue({ code: 'custom', message: `Unknown event type "${name}"` });
      return type ?? z.NEVER;
    })
    .meta({ enum: [...EVENT_TYPES, ...Object.keys(EVENT_ALIASES)] })
    .optional(),
  endpointId: z.string().min(1).optional(),
  status: z.enum(DELIVERY_STATUSES, { error: `Status must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
});
export type EventLogQuery = z.output<typeof eventLogQuery>;

/** The endpoint as every response shows it: `enabled` and `isActive` name the same switch (the spec's conflict). */
export const endpointResource = z
  .object({
    id: prefixedId('wh'),
    url: z.string(),
    events: z.array(z.string()).meta({ example: ['checkout.succeeded', 'refund.completed'] }),
    enabled: z.boolean(),
    isActive: z.boolean(),
    description: z.string().nullable(),
    livemode: z.boolean(),
    disabledReason: z
      .enum(DISABLED_REASONS)
      .nullable()
      .meta({ description: 'Null while enabled; `manual` when switched off through the API, `failing` when disabled after failing without a success for 5 days.' }),
    disabledAt: timestamp().nullable(),
    rateLimitPerSecond: z.number().int().min(1).max(1000).nullable().meta({ description: 'Attempts a second at most; null: no limit.' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type EndpointResource = z.output<typeof endpointResource>;

/** Create and rotate: the signing secret beside the endpoint, shown once (null in an Idempotency-Key replay). */
export const endpointWithSecretResource = z
  .object({
    endpoint: endpointResource,
    secret: z
      .string()
      .regex(/^whsec_/)
      .nullable()
      .meta({ description: 'Shown once. Null when the answer is an Idempotency-Key replay: rotate the secret if it was lost.' }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const endpointListResource = z.object({ items: z.array(endpointResource), meta: pageMetaSchema });

export const deletedEndpointResource = z.object({ id: prefixedId('wh'), deleted: z.literal(true) }).meta({ id: 'DeletedWebhookEndpoint' });

export const attemptResource = z
  .object({
    attemptNumber: z.number().int().min(1),
    attemptedAt: timestamp(),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int().min(0),
    responseBody: z.string().nullable(),
    error: z.string().nullable(),
    succeeded: z.boolean(),
  })
  .meta({ id: 'WebhookAttempt' });

export const deliveryResource = z
  .object({
    id: prefixedId('whd'),
    eventId: prefixedId('evt'),
    endpointId: prefixedId('wh'),
    status: z.enum(DELIVERY_STATUSES),
    generation: z.number().int().min(0).meta({ description: '0 for the first delivery; each manual retry makes the next.' }),
    attemptCount: z.number().int().min(0),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: timestamp().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    completedAt: timestamp().nullable(),
    attempts: z.array(attemptResource).optional(),
  })
  .meta({ id: 'WebhookDelivery' });
export type DeliveryResource = z.output<typeof deliveryResource>;

export const eventLogEntryResource = z
  .object({
    id: prefixedId('evt'),
    eventType: z.enum(EVENT_TYPES),
    type: z.enum(EVENT_TYPES).meta({ description: 'Same as `eventType` (handler examples in the spec read `type`).' }),
    livemode: z.boolean(),
    test: z.boolean().meta({ description: 'True for a ping sent by `POST /api/webhooks/{id}/test`.' }),
    createdAt: timestamp(),
    payload: z.record(z.string(), z.unknown()),
    deliveries: z.array(deliveryResource),
  })
  .meta({ id: 'EventLogEntry' });
export type EventLogEntryResource = z.output<typeof eventLogEntryResource>;

export const eventLogResource = z.object({ items: z.array(eventLogEntryResource), meta: pageMetaSchema });

export const retriedDeliveriesResource = z.object({ deliveries: z.array(deliveryResource) }).meta({ id: 'RetriedDeliveries' });

/** The webhooks' own events, for the document's webhooks. */
export const webhookEventPayloads = {
  // Sent to an endpoint's other subscribed endpoints when it is disabled for failing (docs/decisions.md, Webhooks).
  'webhook_endpoint.disabled': z.object({ endpointId: prefixedId('wh'), url: z.string(), reason: z.enum(['failing']), disabledAt: timestamp() }),
  // Only `POST /api/webhooks/{id}/test` sends it, to that endpoint alone (its body also carries `test: true`).
  'webhook.test': z.object({ endpointId: prefixedId('wh'), message: z.string(), timestamp: timestamp() }),
};
