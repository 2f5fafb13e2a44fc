import { z } from 'zod';
import { DomainError, type FieldError } from './errors.js';
import { typeMessages } from './type-messages.js';
import { unknownFieldErrors } from './unknown-fields.js';

/**
 * Parsing input with a zod schema, for the HTTP edge and for domain code alike: a failure is the
 * catalogue's `validation_failed` listing every field problem, whoever asked.
 */

/**
 * PostgreSQL cannot store U+0000 in text, nor an unpaired UTF-16 surrogate in jsonb: such a string used
 * to reach the database and come back as a 500 or 503. `parse` refuses them with the rest of the bad
 * input, naming the field (src/http/text-guard.ts does the same for ids in a path).
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

/**
 * Whether any string (or object key) cannot be stored: the same rule as `unstorableText`, but a walk that
 * builds no paths and no arrays, since almost every value passes. It runs on every parsed body (the busiest
 * request's too); the paths are built only once a problem is known to be there.
 */
function hasUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return !isStorableText(value);
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (value !== null && typeof value === 'object') {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (!isStorableText(key) || hasUnstorableText((value as Record<string, unknown>)[key])) return true;
    }
  }
  return false;
}

/** Every problem of a failed parse with `root`, one entry per field (an object's unknown fields each get theirs). */
export function fieldErrors(error: z.ZodError, root: z.ZodType): FieldError[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    return issue.code === 'unrecognized_keys' ? unknownFieldErrors(root, path, issue.keys) : [{ path, message: issue.message }];
  });
}

/**
 * Parses a value with a schema, or throws the spec's validation error. Only parsed values go inward, and
 * none with text the database cannot store. A number or boolean of the wrong type is told its type
 * (type-messages.ts); a field the schema does not define is refused by name (unknown-fields.ts).
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value, { error: typeMessages(schema) });
  if (!result.success) throw new DomainError('validation_failed', { errors: fieldErrors(result.error, schema) });
  if (hasUnstorableText(result.data)) throw new DomainError('validation_failed', { errors: unstorableText(result.data) });
  return result.data;
}

/**
 * Zod's default e-mail rule, with the message used across the API, within SMTP's limits (RFC 5321: 254
 * characters in all, 64 before the @), which zod's pattern does not count. Found by `npm run fuzz`.
 */
export const email = () =>
  z
    .email({ error: 'Invalid email format' })
    .max(254, { error: 'Invalid email format' })
    .refine((address) => address.lastIndexOf('@') <= 64, { error: 'Invalid email format' });
