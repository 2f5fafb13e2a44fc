import { z } from 'zod';
import { IDEMPOTENCY_KEY_PATTERN } from '../../modules/idempotency/request-fingerprint.rules.js';

/** The optional `Idempotency-Key` header of every POST behind an API key. */
export const idempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .meta({
      param: { id: 'IdempotencyKey' },
      description:
        'Makes the POST safe to retry: the first answer (status and body) is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, to a repeat with the same key. Scoped to the business and mode. The same key with another method, path or body is 422 `idempotency_error`; a repeat while the first is still running is 409 `idempotency_error` (both as the IETF Idempotency-Key draft says). Failed requests are not stored, so the key can be reused after fixing the request.',
      example: 'order-1001-refund',
    }),
});

/** The optional `If-None-Match` header of the single-resource reads (they answer 304 when it matches). */
export const ifNoneMatchHeader = z.object({
  'If-None-Match': z
    .string()
    .optional()
    .meta({
      param: { id: 'IfNoneMatch' },
      description:
        'One or more ETags from earlier answers (`"…"`, `W/"…"`, comma-separated) or `*`. When one matches the current ETag (weak comparison, RFC 9110) the answer is 304 with no body.',
      example: '"3q2-7wEjR0aY1b8kWb9v0A"',
    }),
});

/**
 * Path ids. Every id the service makes has this shape, but an id of another shape is simply not found
 * (404), so the document states the shape and the service answers the rest as unknown.
 */
export const idPath = (prefix: string, description: string) =>
  z.object({
    id: z
      .string()
      .regex(new RegExp(`^${prefix}_[0-9a-f]{32}$`))
      .meta({ description, example: `${prefix}_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e` }),
  });

export const sessionIdPath = z.object({
  id: z.uuid().meta({ description: 'The checkout session id (a UUID).', example: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e' }),
});
