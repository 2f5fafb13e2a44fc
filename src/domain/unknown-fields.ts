import { z } from 'zod';
import type { FieldError } from './errors.js';

/**
 * A field a request does not define is refused, by name. A payments API must not guess: a refund sent
 * with `"amount": 10` was answered 201 and refunded the whole session, and a session sent with
 * `"currency": "EUR"` was made in USD, because unknown fields were dropped. Stripe answers such a request
 * "Received unknown parameter: amount"; this service answers "Unknown field: amount".
 *
 * Every request object is declared with `z.strictObject` (the API document then says
 * `additionalProperties: false`, and a test holds every body to it); zod reports one object's unknown
 * keys as one issue, which becomes one `errors` entry per field here.
 */

/**
 * What an unknown field of a request's top level is taught, where the mistake would move the wrong money:
 * registered on the schema the request is parsed with (`createRefundInput.register(UNKNOWN_FIELD_ADVICE,
 * { amount: … })`), so the words sit beside the fields they explain.
 */
export const UNKNOWN_FIELD_ADVICE = z.registry<Partial<Record<string, string>>>();

export const unknownFieldMessage = (name: string, advice?: string): string =>
  advice === undefined ? `Unknown field: ${name}` : `Unknown field: ${name}. ${advice}`;

/** One entry per unknown field of a zod `unrecognized_keys` issue, advised as `root` says for its top level. */
export function unknownFieldErrors(root: z.ZodType, path: (string | number)[], keys: readonly string[]): FieldError[] {
  const advice = path.length === 0 ? UNKNOWN_FIELD_ADVICE.get(root) : undefined;
  // Own keys only: the field may be named `__proto__` or `toString`.
  return keys.map((key) => ({ path: [...path, key], message: unknownFieldMessage(key, advice && Object.hasOwn(advice, key) ? advice[key] : undefined) }));
}
