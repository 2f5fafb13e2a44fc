import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { DomainError, type FieldError } from '../../src/domain/errors.js';
import { parse } from '../../src/domain/validation.js';
import { ApiError, toApiError } from '../../src/http/errors.js';
import { apiDocument } from '../../src/api/openapi/document.js';
import { openApiPath } from '../../src/http/operation.js';
import { declaredOperations } from '../../src/api/routes.js';

/**
 * A number or boolean of the wrong type is told its type, in every body and query of the API. The
 * fields are found in the API document's JSON Schema (not by the code under test), each is sent a
 * string, and the answer for that field must name its type as the document gives it.
 */
type JsonSchema = Record<string, any>;
const doc = apiDocument() as unknown as JsonSchema;

const resolve = (schema: JsonSchema): JsonSchema => {
  if (!schema.$ref) return schema;
  const found = (schema.$ref as string).replace(/^#\//, '').split('/').reduce((at: JsonSchema, part: string) => at[part], doc);
  return resolve(found);
};

/** number, integer or boolean (nullable ones too); null for anything else, or a union with text. */
function scalarType(schema: JsonSchema): 'number' | 'integer' | 'boolean' | null {
  const types = [schema.type ?? (schema.anyOf as JsonSchema[] | undefined)?.map((option) => resolve(option).type)].flat().filter((t) => t && t !== 'null');
  return types.length === 1 && ['number', 'integer', 'boolean'].includes(types[0]) ? types[0] : null;
}

interface Field {
  path: (string | number)[];
  type: 'number' | 'integer' | 'boolean';
  dollars: boolean;
  /** The value sent: the wrong type at `path`, and what the body's union needs to reach it. */
  value: JsonSchema;
}

/** Every number and boolean a body schema has, through its objects, arrays and object unions. */
function fieldsOf(schema: JsonSchema, path: (string | number)[] = [], base: JsonSchema = {}): Field[] {
  const at = resolve(schema);
  const type = scalarType(at);
  if (type) return [{ path, type, dollars: at.multipleOf === 0.01, value: base }];
  if (at.oneOf) {
    // A discriminated union: each option with its discriminator's value set.
    return (at.oneOf as JsonSchema[]).flatMap((option) => {
      const props = resolve(option).properties ?? {};
      const consts = Object.fromEntries(Object.entries(props as Record<string, JsonSchema>).filter(([, p]) => 'const' in p).map(([k, p]) => [k, p.const]));
      return fieldsOf(option, path, setAt(base, path, consts));
    });
  }
  if (at.type === 'array' && at.items) return fieldsOf(at.items, [...path, 0], base);
  if (at.properties) return Object.entries(at.properties as Record<string, JsonSchema>).flatMap(([name, p]) => fieldsOf(p, [...path, name], base));
  return [];
}

function setAt(base: JsonSchema, path: (string | number)[], value: unknown): JsonSchema {
  const copy = structuredClone(base);
  if (path.length === 0) return Object.assign(copy, value);
  let at: any = copy;
  path.slice(0, -1).forEach((step, i) => (at = at[step] ??= typeof path[i + 1] === 'number' ? [] : {}));
  at[path.at(-1)!] = typeof at[path.at(-1)!] === 'object' && typeof value === 'object' ? { ...at[path.at(-1)!], ...value } : value;
  return copy;
}

const cases = declaredOperations().flatMap((op) => {
  const documented = doc.paths[openApiPath(op.path)][op.method];
  const bodySchema = (op.doc.requestBody as any)?.content?.['application/json']?.schema as z.ZodType | undefined;
  const querySchema = (op.doc.requestParams as any)?.query as z.ZodType | undefined;
  const body = bodySchema
    ? fieldsOf(documented.requestBody.content['application/json'].schema).map((field) => ({ ...field, in: 'body', schema: bodySchema }))
    : [];
  const query = querySchema
    ? (documented.parameters as JsonSchema[])
        .filter((p) => p.in === 'query' && scalarType(resolve(p.schema)))
        .map((p) => ({ path: [p.name], type: scalarType(resolve(p.schema))!, dollars: false, value: {}, in: 'query', schema: querySchema }))
    : [];
  return [...body, ...query].map((field) => ({ ...field, name: `${op.method.toUpperCase()} ${op.path} ${field.in} ${field.path.join('.')}` }));
});

const expectedShape = (field: (typeof cases)[number]) => {
  const name = String(field.path.at(-1));
  const said = `(${name}|${name[0]!.toUpperCase()}${name.slice(1)})`;
  if (field.type === 'boolean') return new RegExp(`^${said} must be true or false$`);
  if (field.dollars) return new RegExp(`^${said} must be a number of dollars, such as \\d+\\.\\d\\d$`);
  if (field.type === 'integer') return new RegExp(`^${said} must be an integer, such as -?\\d+$`);
  return new RegExp(`^${said} must be a number, such as -?[\\d.]+$`);
};

function problemsOf(schema: z.ZodType, value: unknown): { headline: string; errors: FieldError[] } {
  try {
    parse(schema, value);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const answer = toApiError(error)!;
    return { headline: answer.message, errors: answer.details.errors ?? [] };
  }
  throw new Error('parsed');
}

describe('a number or boolean of the wrong type is told its type', () => {
  it('finds the fields the issue names in the document', () => {
    const names = cases.map((c) => c.name);
    for (const expected of [
      'POST /checkout/sessions body items.0.price',
      'POST /checkout/sessions body items.0.quantity',
      'POST /checkout/sessions body askShipping',
      'POST /withdrawals body amount',
      'GET /checkout/sessions query limit',
      'GET /checkout/sessions query page',
      'GET /withdrawals query page',
      'POST /disputes/:id/evidence body submit',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it.each(cases)('$name', (field) => {
    const { errors } = problemsOf(field.schema, setAt(field.value, field.path, 'wrong'));
    const entry = errors.find((e) => JSON.stringify(e.path) === JSON.stringify(field.path));
    expect(entry?.message).toMatch(expectedShape(field));
  });
});

describe('the words, and where they are said', () => {
  const session = declaredOperations().find((op) => op.operationId === 'createCheckoutSession')!;
  const schema = (session.doc.requestBody as any).content['application/json'].schema as z.ZodType;
  const body = (item: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
    description: 'Order',
    customer: { email: 'a@b.co' },
    items: [{ name: 'House blend', price: 24.5, quantity: 1, ...item }],
    ...over,
  });

  it('a price given as text: its entry and the top-level message say the type, with an example', () => {
    const message = 'Price must be a number of dollars, such as 24.50';
    expect(problemsOf(schema, body({ price: '24.50' }))).toEqual({ headline: message, errors: [{ path: ['items', 0, 'price'], message }] });
  });

  it('a price of the right type out of range keeps the spec’s words', () => {
    const message = 'Price must be between 0.01 and 999999.99';
    expect(problemsOf(schema, body({ price: 0 }))).toEqual({ headline: message, errors: [{ path: ['items', 0, 'price'], message }] });
  });

  it('a missing price, a null one and one of the wrong kind say the same', () => {
    for (const price of [undefined, null, true, [24.5]]) {
      expect(problemsOf(schema, body({ price })).headline).toBe('Price must be a number of dollars, such as 24.50');
    }
  });

  it('a quantity with a fraction or as text, and askShipping as text', () => {
    expect(problemsOf(schema, body({ quantity: 1.5 })).headline).toBe('Quantity must be an integer, such as 1');
    expect(problemsOf(schema, body({ quantity: '2' })).headline).toBe('Quantity must be an integer, such as 1');
    expect(problemsOf(schema, body({}, { askShipping: 'yes' })).headline).toBe('askShipping must be true or false');
  });

  it('the top-level message is the first problem’s: a type message after another problem leaves "Validation failed"', () => {
    const { headline, errors } = problemsOf(schema, body({ price: '24.50' }, { description: '' }));
    expect(headline).toBe('Validation failed');
    expect(errors).toContainEqual({ path: ['items', 0, 'price'], message: 'Price must be a number of dollars, such as 24.50' });
  });

  it('a query’s limit says its default as the example', () => {
    const list = declaredOperations().find((op) => op.operationId === 'listCheckoutSessions')!;
    const query = (list.doc.requestParams as any).query as z.ZodType;
    expect(problemsOf(query, { limit: 'ten' })).toEqual({ headline: 'Limit must be an integer, such as 20', errors: [{ path: ['limit'], message: 'Limit must be an integer, such as 20' }] });
    expect(problemsOf(query, { page: '1.5' }).headline).toBe('Page must be an integer, such as 1');
  });

  it('is an ApiError like any validation failure: 400 validation_error', () => {
    const error = new ApiError('validation_failed', { errors: [{ path: ['amount'], message: 'Amount must be a number of dollars, such as 125.50' }] });
    expect([error.status, error.type, error.message]).toEqual([400, 'validation_error', 'Amount must be a number of dollars, such as 125.50']);
  });
});
