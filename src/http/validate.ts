import type { Context } from 'koa';
import { z } from 'zod';
import { ApiError, type FieldError } from './errors.js';
import { unstorableText } from './text-guard.js';

/**
 * Messages the spec names for particular rules. When the first problem in a request is one of these,
 * the envelope's top-level message is that message (the spec's error table); otherwise it is the
 * generic "Validation failed". `errors` always lists every problem.
 */
export const SPEC_FIELD_MESSAGES = new Set([
  'Price must be between 0.01 and 999999.99',
  'At least one item is required',
  'Too many metadata fields (max 50)',
  'URL must be HTTPS',
]);

export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    message: issue.message,
  }));
}

export function toValidationError(error: z.ZodError): ApiError {
  const errors = fieldErrors(error);
  const headline = errors[0] && SPEC_FIELD_MESSAGES.has(errors[0].message) ? errors[0].message : undefined;
  const apiError = new ApiError('validation_failed', { errors });
  if (headline) Object.defineProperty(apiError, 'message', { value: headline });
  return apiError;
}

/**
 * Parses a value with a schema, or throws the spec's validation error. Only parsed values go inward, and
 * none with text the database cannot store (text-guard.ts).
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw toValidationError(result.error);
  const unstorable = unstorableText(result.data);
  if (unstorable.length) throw new ApiError('validation_failed', { errors: unstorable });
  return result.data;
}

export const parseBody = <S extends z.ZodType>(ctx: Context, schema: S): z.output<S> =>
  parse(schema, ctx.request.body ?? {});

export const parseQuery = <S extends z.ZodType>(ctx: Context, schema: S): z.output<S> => parse(schema, ctx.query);

/**
 * Zod's default e-mail rule, with the message used across the API, within SMTP's limits (RFC 5321: 254
 * characters in all, 64 before the @), which zod's pattern does not count. Found by `npm run fuzz`.
 */
export const email = () =>
  z
    .email({ error: 'Invalid email format' })
    .max(254, { error: 'Invalid email format' })
    .refine((address) => address.lastIndexOf('@') <= 64, { error: 'Invalid email format' });

/** The instants PostgreSQL stores as written: years 1 to 9999, UTC (year 0 and five-digit years it refuses). */
const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A query's instant: an ISO 8601 date-time with any offset, or a date (its midnight UTC). Zod accepts
 * year 0000 and offsets that carry a time past 9999; those reached SQL and failed there (a 500), so they
 * are refused here with the rest of the bad input.
 */
export const queryInstant = (error = 'Must be an ISO 8601 date-time') =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], { error })
    .refine((value) => {
      const at = Date.parse(value);
      return at >= EARLIEST_INSTANT && at <= LATEST_INSTANT;
    }, { error: 'Must be between 0001-01-01 and 9999-12-31 (UTC)' });
