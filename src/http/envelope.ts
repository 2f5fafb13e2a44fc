import { z } from 'zod';
import { COUNT_CAP } from '../domain/cursor.js';
import type { ErrorType } from './errors.js';

/**
 * The spec's two envelopes as zod schemas. They type what the handlers send, and the API document is
 * generated from them, so the document and the answers cannot drift apart unnoticed.
 */

/** Every error type the catalogue can give; the check below fails to compile if one is missing. */
export const ERROR_TYPES = [
  'validation_error',
  'authentication_error',
  'permission_error',
  'not_found',
  'method_not_allowed',
  'idempotency_error',
  'rate_limit_exceeded',
  'request_timeout',
  'service_unavailable',
  'api_error',
] as const satisfies readonly ErrorType[];
const everyTypeListed: Exclude<ErrorType, (typeof ERROR_TYPES)[number]> extends never ? true : never = true;
void everyTypeListed;

export const requestIdSchema = z.string().regex(/^req_[0-9a-f]{32}$/).meta({ description: 'The request id (`req_…`), also sent as `X-Request-Id`.', example: 'req_0c5a8e61a3f14a5e9d4b7c2a1f0e9d8c' });

export const fieldErrorSchema = z
  .object({
    path: z.array(z.union([z.string(), z.number().int()])).meta({ description: 'Property names and array indexes leading to the problem.' }),
    message: z.string(),
  })
  .meta({ id: 'FieldError', description: 'One field-level problem.' });

/** The error envelope; `types` narrows `error.type` to those a given status can carry. */
export function errorEnvelope(types: readonly [ErrorType, ...ErrorType[]] = ERROR_TYPES) {
  return z.object({
    success: z.literal(false),
    error: z.object({
      type: z.enum(types),
      message: z.string().meta({ description: 'Human-readable.' }),
      requestId: requestIdSchema,
      errors: z.array(fieldErrorSchema).optional().meta({ description: 'Present on validation failures: every problem found.' }),
      retryAfter: z.number().int().min(1).optional().meta({ description: 'Seconds to wait before retrying; present on rate-limit errors, on 503 service_unavailable and on 409 for an Idempotency-Key in progress.' }),
    }),
  });
}
export type ErrorEnvelope = z.output<ReturnType<typeof errorEnvelope>>;

/** `{ success: true, data }`, with any siblings of `data` an operation adds (a list's `pagination`). */
export function successEnvelope<T extends z.ZodType, S extends z.ZodRawShape = {}>(data: T, siblings?: S) {
  return z.object({ success: z.literal(true), data, ...(siblings ?? ({} as S)) });
}

/** ISO 8601 instants as the service writes them (`Date.toISOString()`, always UTC). */
export const timestamp = () => z.iso.datetime().meta({ example: '2026-11-21T09:30:00.000Z' });

/** `<prefix>_<32 hex>` identifiers. */
export const prefixedId = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9a-f]{32}$`)).meta({ example: `${prefix}_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e` });

/** Integer cents; amounts never leave the exact range of a JavaScript number. */
/** Dollars as text with two decimals (`"46.58"`), as the spec's event payloads give `amountInDecimals`. */
export const decimalDollars = () => z.string().regex(/^\d+\.\d{2}$/).meta({ example: '46.58' });

export const cents = () => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Page metadata of the page-numbered lists. */
export const pageMetaSchema = z
  .object({
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    limit: z.number().int().min(1).max(100),
    totalPages: z.number().int().min(0),
    hasNextPage: z.boolean(),
    hasPreviousPage: z.boolean(),
    totalCapped: z
      .literal(true)
      .optional()
      .meta({
        description: `Present (and true) only when the list is filtered in a way no counter keeps (a search, a date range, a delivery's endpoint or status) and more than ${COUNT_CAP.toLocaleString('en-US')} rows match: \`total\` is then ${COUNT_CAP.toLocaleString('en-US')} and \`totalPages\` counts those. Every other total is exact.`,
      }),
  })
  .meta({ id: 'PageMeta' });
