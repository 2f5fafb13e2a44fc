import { z } from 'zod';
import { noNulInRequestText } from '../../http/openapi/no-nul.js';
import { unknownFieldMessage } from '../../domain/unknown-fields.js';

export const MAX_METADATA_ENTRIES = 50;
export type Metadata = Record<string, string | number | boolean>;

/**
 * Keys are the merchant's, but not `__proto__`: a JavaScript object cannot hold it as an ordinary key (zod's
 * record drops it, an assignment would replace the object's prototype), so it is refused rather than lost.
 */
const RESERVED_KEY = '__proto__';
const RESERVED_KEY_MESSAGE = 'Metadata key __proto__ is reserved';

const key = z
  .string()
  .min(1, { error: 'Metadata keys must be 1-64 characters' })
  .max(64, { error: 'Metadata keys must be 1-64 characters' })
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'Metadata keys may contain only letters, digits, dash and underscore' })
  .refine((name) => name !== RESERVED_KEY, { error: RESERVED_KEY_MESSAGE });
const keyJsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', not: { const: RESERVED_KEY } } as const;

const value = z.union([z.string().max(255, { error: 'Metadata values must be at most 255 characters' }), z.number().int(), z.boolean()], {
  error: 'Metadata values must be a string, an integer or a boolean',
});

// As the document's generated schemas: a value's text refuses U+0000 (src/http/openapi/no-nul.ts).
const { $schema: _dialect, ...valueJsonSchema } = z.toJSONSchema(value, { io: 'input', override: ({ jsonSchema }) => noNulInRequestText({ jsonSchema, io: 'input' }) });

const asArray = z.array(z.strictObject({ key, value }));
const asObject = z.record(z.string(), value);

/**
 * Metadata arrives as an object or as an array of `{key, value}`, and is always returned as an object.
 * The entry count is checked first, so more than 50 entries gives the spec's message whatever else is wrong.
 */
export const metadataSchema = z.unknown().transform((input, ctx): Metadata => {
  const isArray = Array.isArray(input);
  const isObject = typeof input === 'object' && input !== null && !isArray;
  if (!isArray && !isObject) {
    ctx.addIssue({ code: 'custom', message: 'Metadata must be an object or an array of {key, value} entries' });
    return z.NEVER;
  }
  const count = isArray ? input.length : Object.keys(input as object).length;
  if (count > MAX_METADATA_ENTRIES) {
    ctx.addIssue({ code: 'custom', message: 'Too many metadata fields (max 50)' });
    return z.NEVER;
  }
  if (isArray) {
    const parsed = asArray.safeParse(input);
    if (!parsed.success) return forward(parsed.error, ctx);
    return Object.fromEntries(parsed.data.map((entry) => [entry.key, entry.value]));
  }
  const parsed = asObject.safeParse(input);
  if (!parsed.success) return forward(parsed.error, ctx);
  // The input's keys, not the parsed object's: zod's record leaves `__proto__` out of what it returns.
  for (const name of Object.keys(input as object)) {
    const checked = key.safeParse(name);
    if (!checked.success) ctx.addIssue({ code: 'custom', path: [name], message: checked.error.issues[0].message });
  }
  return parsed.data;
}).meta({
  // What the transform above accepts, written out for the API document (a transform has no JSON Schema).
  description: 'Up to 50 entries, as an object or as an array of `{key, value}`; always returned as an object.',
  anyOf: [
    { type: 'object', maxProperties: MAX_METADATA_ENTRIES, propertyNames: keyJsonSchema, additionalProperties: valueJsonSchema },
    {
      type: 'array',
      maxItems: MAX_METADATA_ENTRIES,
      items: {
        type: 'object',
        properties: { key: keyJsonSchema, value: valueJsonSchema },
        required: ['key', 'value'],
        additionalProperties: false,
      },
    },
  ],
  example: { orderId: 'A-1001', giftWrap: true },
});

function forward(error: z.ZodError, ctx: z.RefinementCtx): never {
  for (const issue of error.issues) {
    const path = issue.path as (string | number)[];
    // An entry's unknown fields, each by name, as everywhere (src/domain/unknown-fields.ts).
    if (issue.code === 'unrecognized_keys') for (const name of issue.keys) ctx.addIssue({ code: 'custom', path: [...path, name], message: unknownFieldMessage(name) });
    else ctx.addIssue({ code: 'custom', path, message: issue.message });
  }
  return z.NEVER as never;
}
