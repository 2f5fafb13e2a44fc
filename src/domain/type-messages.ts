import { z } from 'zod';

/**
 * What a field of the wrong type is told. `"price": "24.50"` used to answer "Price must be between 0.01
 * and 999999.99", which 24.50 is; a wrong type now says the type, and gives an example of it:
 *
 *   Price must be a number of dollars, such as 24.50
 *   Quantity must be an integer, such as 1
 *   askShipping must be true or false
 *
 * The message is read from the schema the request was parsed with, not written field by field: the
 * field's name from the issue's path, its type from the schema found at that path, its example from the
 * schema's `example` (the API document's), else its default, else its minimum. A field asks for dollars
 * by being built with `dollars()`. Every number and boolean of every body and query is covered, as long
 * as its schema gives no message of its own for a wrong type (a schema's own message wins in zod).
 */

/** Numbers a request gives in dollars (the spec's request amounts): a price, a withdrawal amount. */
const DOLLAR_FIELDS = z.registry<{ unit: 'dollars' }>();

/** A JSON number of dollars; its wrong type says "a number of dollars". */
export const dollars = () => z.number().register(DOLLAR_FIELDS, { unit: 'dollars' });

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

type Schema = z.core.$ZodType;
const defOf = (schema: Schema) => schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;

/** The schema a path leads to (through objects, arrays, records, unions and wrappers), or undefined. */
function schemaAt(schema: Schema, path: readonly PropertyKey[]): Schema | undefined {
  if (path.length === 0) return schema; // with its wrappers, which hold its default
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return schemaAt(def.innerType as Schema, path);
  if (def.type === 'pipe') return schemaAt(def.in as Schema, path);
  if (def.type === 'lazy') return schemaAt((def.getter as () => Schema)(), path);
  if (def.type === 'union') {
    // The first option that has a number or boolean there; the options of a union share their fields' types.
    return (def.options as Schema[]).map((option) => schemaAt(option, path)).find((found) => found && kindOf(found));
  }
  if (def.type === 'intersection') return schemaAt(def.left as Schema, path) ?? schemaAt(def.right as Schema, path);
  const [step, ...rest] = path;
  if (def.type === 'object') {
    const field = (def.shape as Record<PropertyKey, Schema>)[step!];
    return field && schemaAt(field, rest);
  }
  if (def.type === 'array') return schemaAt(def.element as Schema, rest);
  if (def.type === 'record') return schemaAt(def.valueType as Schema, rest);
  return undefined;
}

interface Kind {
  type: 'dollars' | 'integer' | 'number' | 'boolean';
  example?: number;
}

/** A number or boolean field's type and example, read through its wrappers; null for any other field. */
function kindOf(schema: Schema): Kind | null {
  let example: unknown;
  let fallback: unknown;
  let at = schema;
  for (;;) {
    example ??= z.globalRegistry.get(at)?.example;
    const def = defOf(at);
    if (def.type === 'default' || def.type === 'prefault') fallback ??= typeof def.defaultValue === 'function' ? undefined : def.defaultValue;
    if (WRAPPERS.has(def.type)) at = def.innerType as Schema;
    else if (def.type === 'pipe') at = def.in as Schema;
    else break;
  }
  if (at instanceof z.ZodBoolean) return { type: 'boolean' };
  if (!(at instanceof z.ZodNumber)) return null;
  const type = DOLLAR_FIELDS.get(at) ? 'dollars' : at.isInt ? 'integer' : 'number';
  const given = [example, fallback, at.minValue].find((value): value is number => typeof value === 'number' && Number.isFinite(value));
  return { type, example: given };
}

/** `price` → `Price`; a camelCase name (`askShipping`) is written as the client writes it. */
const fieldName = (name: string) => (/^[a-z]+$/.test(name) ? name[0]!.toUpperCase() + name.slice(1) : name);

function typeMessage(name: string, kind: Kind): string {
  const example = (text: string) => (kind.example === undefined ? '' : `, such as ${text}`);
  switch (kind.type) {
    case 'dollars':
      return `${name} must be a number of dollars${example(kind.example?.toFixed(2) ?? '')}`;
    case 'integer':
      return `${name} must be an integer${example(String(kind.example))}`;
    case 'number':
      return `${name} must be a number${example(String(kind.example))}`;
    case 'boolean':
      return `${name} must be true or false`;
  }
}

const TYPE_MESSAGE = /^\S+ must be (a number of dollars|an integer|a number)(, such as \S+)?$|^\S+ must be true or false$/;

/** Whether a field's message is one of these: the envelope's top-level message then repeats it. */
export const isTypeMessage = (message: string): boolean => TYPE_MESSAGE.test(message);

/** Types zod reports as `invalid_type` that a message here explains (`int`: a number with a fraction). */
const EXPLAINED = new Set(['number', 'int', 'boolean']);

/**
 * A zod error map for parsing with `root`: a number or boolean field of the wrong type gets its message
 * from the schema; every other problem keeps zod's or the schema's own.
 */
export function typeMessages(root: z.ZodType): z.core.$ZodErrorMap {
  return (issue) => {
    if (issue.code !== 'invalid_type' || !EXPLAINED.has(issue.expected)) return undefined;
    const path = issue.path ?? [];
    const name = path.findLast((step): step is string => typeof step === 'string');
    const field = name === undefined ? undefined : schemaAt(root, path);
    const kind = field && kindOf(field);
    return kind ? typeMessage(fieldName(name!), kind) : undefined;
  };
}
