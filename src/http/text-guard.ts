import type { Context, Next } from 'koa';
import { isStorableText } from '../domain/validation.js';
import { ApiError } from './errors.js';

/**
 * PostgreSQL cannot store U+0000 in text, nor an unpaired UTF-16 surrogate in jsonb: such a string used
 * to reach the database and come back as a 500 or 503. They are refused at the edge instead, for every
 * operation at once: in the body or the query, 400 `validation_error` naming the field (`parse`,
 * src/domain/validation.ts); in the path (an id), 404, as for any id that cannot exist (below).
 */

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // not valid percent-encoded UTF-8: the router leaves it as it is, and so do we
  }
}

/**
 * Before any route: an id in the path with such text cannot exist. Bodies and queries are checked
 * by `parse` (src/domain/validation.ts), on what the schema kept (unknown fields are ignored, whatever they hold).
 */
export async function storableIds(ctx: Context, next: Next): Promise<void> {
  if (!isStorableText(decodedPath(ctx.path))) throw new ApiError('route_not_found');
  await next();
}
