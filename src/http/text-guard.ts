import type { Context, Next } from 'koa';
import { ApiError, type FieldError } from './errors.js';

/**
 * PostgreSQL cannot store U+0000 in text, nor an unpaired UTF-16 surrogate in jsonb: such a string used
 * to reach the database and come back as a 500 or 503. They are refused at the edge instead, for every
 * operation at once: in the body or the query, 400 `validation_error` naming the field; in the path
 * (an id), 404, as for any id that cannot exist.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const UNSTORABLE_TEXT_MESSAGE = 'Must not contain NUL characters or unpaired surrogates';

export const isStorableText = (text: string): boolean => !UNSTORABLE.test(text);

/** Every string (object keys too) that cannot be stored, with its path, depth first. */
export function unstorableText(value: unknown, path: (string | number)[] = []): FieldError[] {
  if (typeof value === 'string') return isStorableText(value) ? [] : [{ path, message: UNSTORABLE_TEXT_MESSAGE }];
  if (Array.isArray(value)) return value.flatMap((item, index) => unstorableText(item, [...path, index]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [
      ...(isStorableText(key) ? [] : [{ path: [...path, key], message: UNSTORABLE_TEXT_MESSAGE }]),
      ...unstorableText(item, [...path, key]),
    ]);
  }
  return [];
}

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // not valid percent-encoded UTF-8: the router leaves it as it is, and so do we
  }
}

/**
 * Before any route: an id in the path with such text cannot exist. Bodies and queries are checked
 * by `parse` in validate.ts, on what the schema kept (unknown fields are ignored, whatever they hold).
 */
export async function storableIds(ctx: Context, next: Next): Promise<void> {
  if (!isStorableText(decodedPath(ctx.path))) throw new ApiError('route_not_found');
  await next();
}
