import { z } from 'zod';
import { DELIVERY_STATUSES } from './webhook.entity.js';
import { canonicalEventType, SUBSCRIBABLE_EVENTS } from './event-subscriptions.js';

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
  .transform((value) => value.replace(/^https:/i, 'https:'));

const events = z
  .array(
    z.string().refine((name) => SUBSCRIBABLE_EVENTS.includes(name), {
      error: (issue) => `Unknown event type "${String(issue.input)}"`,
    }),
    { error: 'Events must be a list of event types' },
  )
  .min(1, { error: 'At least one event type is required' })
  .max(SUBSCRIBABLE_EVENTS.length, { error: 'Too many event types' })
  // Duplicates say nothing new; the list is kept in the merchant's order.
  .transform((list) => [...new Set(list)]);

const description = z.string().max(256, { error: 'Description must be at most 256 characters' }).nullable();

/** `enabled` (create response) and `isActive` (update) name one switch; a body may not set them apart. */
const switchesAgree = (body: { enabled?: boolean; isActive?: boolean }, ctx: z.RefinementCtx) => {
  if (body.enabled !== undefined && body.isActive !== undefined && body.enabled !== body.isActive) {
    ctx.addIssue({ code: 'custom', path: ['isActive'], message: 'isActive and enabled must agree' });
  }
};

export const createEndpointInput = z
  .object({
    url: httpsUrl,
    events,
    description: description.optional(),
    enabled: z.boolean({ error: 'enabled must be a boolean' }).optional(),
    isActive: z.boolean({ error: 'isActive must be a boolean' }).optional(),
  })
  .superRefine(switchesAgree);
export type CreateEndpointInput = z.output<typeof createEndpointInput>;

/** PUT and PATCH alike: every member optional; `enabled` is accepted beside the spec's `isActive`. */
export const updateEndpointInput = z
  .object({
    url: httpsUrl.optional(),
    events: events.optional(),
    isActive: z.boolean({ error: 'isActive must be a boolean' }).optional(),
    enabled: z.boolean({ error: 'enabled must be a boolean' }).optional(),
    description: description.optional(),
  })
  .superRefine(switchesAgree);
export type UpdateEndpointInput = z.output<typeof updateEndpointInput>;

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  page: z.coerce.number().int().min(1).default(1),
});

const isoDate = z.iso.datetime({ offset: true, error: 'Must be an ISO 8601 date-time' }).or(z.iso.date());

export const eventLogQuery = pageQuery.extend({
  eventType: z
    .string()
    .transform((name, ctx) => {
      const type = canonicalEventType(name);
      if (!type) ctx.addIssue({ code: 'custom', message: `Unknown event type "${name}"` });
      return type ?? z.NEVER;
    })
    .optional(),
  endpointId: z.string().min(1).optional(),
  status: z.enum(DELIVERY_STATUSES, { error: `Status must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
});
export type EventLogQuery = z.output<typeof eventLogQuery>;
