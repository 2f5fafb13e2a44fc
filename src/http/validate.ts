import type { Context } from 'koa';
import { z } from 'zod';
import { parse } from '../domain/validation.js';

/** The request's body and query, parsed (src/domain/validation.ts: a failure is 400 `validation_failed`). */
export const parseBody = <S extends z.ZodType>(ctx: Context, schema: S): z.output<S> =>
  parse(schema, ctx.request.body ?? {});

export const parseQuery = <S extends z.ZodType>(ctx: Context, schema: S): z.output<S> => parse(schema, ctx.query);

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
