import { z } from 'zod';
import { prefixedId } from '../../http/envelope.js';
import { queryInstant } from '../../http/validate.js';
import { canonicalEventType, EVENT_ALIASES, SUBSCRIBABLE_TYPES, TEST_EVENT_TYPE } from './event-subscriptions.rules.js';

/** How far back `POST /api/webhooks/:id/recover` may reach: Svix's window, and older events are stale. */
export const RECOVERY_WINDOW_MS = 14 * 24 * 3600 * 1000;

/** `webhook.test` (the default), or any subscribable type (or its alias), which sends a sample of it. */
export const testEndpointInput = z
  .strictObject({
    eventType: z
      .string({ error: 'eventType must be an event type' })
      .transform((name, ctx) => {
        const type = name === TEST_EVENT_TYPE ? TEST_EVENT_TYPE : canonicalEventType(name);
        if (!type) ctx.addIssue({ code: 'custom', message: `Unknown event type "${name}"` });
        return type ?? z.NEVER;
      })
      .meta({ enum: [TEST_EVENT_TYPE, ...SUBSCRIBABLE_TYPES, ...Object.keys(EVENT_ALIASES)], default: TEST_EVENT_TYPE })
      .optional(),
  })
  .meta({ id: 'WebhookTestInput' });
export type TestEndpointInput = z.output<typeof testEndpointInput>;

const instant = queryInstant();

/** A client that computes "14 days ago" and sends it is not refused for the moments the request took. */
const RECOVERY_GRACE_MS = 60_000;

/** `since` at most 14 days ago (checked against the time of the request); `until` defaults to now. */
export const recoverInput = z
  .strictObject({
    since: instant.refine((value) => Date.parse(value) >= Date.now() - RECOVERY_WINDOW_MS - RECOVERY_GRACE_MS, {
      error: 'since must be no more than 14 days ago',
    }),
    until: instant.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.until !== undefined && Date.parse(body.until) < Date.parse(body.since)) {
      ctx.addIssue({ code: 'custom', path: ['until'], message: 'until must not be before since' });
    }
    // Without `until` the window ends now: a `since` after that is the same backwards window (the grace
    // is for a client clock a little ahead).
    if (body.until === undefined && Date.parse(body.since) > Date.now() + RECOVERY_GRACE_MS) {
      ctx.addIssue({ code: 'custom', path: ['since'], message: 'since must not be in the future' });
    }
  })
  .meta({ id: 'WebhookRecoverInput' });
export type RecoverInput = z.output<typeof recoverInput>;

export const testSentResource = z
  .object({ eventId: prefixedId('evt'), deliveryId: prefixedId('whd') })
  .meta({ id: 'WebhookTestSent' });

export const recoveredResource = z
  .object({
    recovered: z.number().int().min(0).meta({ description: 'How many events are being sent again (at most 1,000 a call).' }),
    hasMore: z.boolean().meta({ description: 'More failed events of the window remain: make the same call again (with a new Idempotency-Key, if any) to recover the next page.' }),
  })
  .meta({ id: 'WebhookRecovered' });
