import { z } from 'zod';
import { IDEMPOTENCY_KEY_PATTERN } from './request-fingerprint.rules.js';

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
