import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { DomainError, type FieldError } from '../../src/domain/errors.js';
import { parse } from '../../src/domain/validation.js';
import { toApiError } from '../../src/http/errors.js';
import { apiDocument } from '../../src/api/openapi/document.js';
import { declaredBody, declaredQuery, openApiPath } from '../../src/http/operation.js';
import { declaredOperations } from '../../src/api/routes.js';

/**
 * A field a request does not define is refused by name, at every depth of every body and in every query.
 * The objects are found in the API document's JSON Schema (not by the code under test); each is sent,
 * inside the operation's own documented example, a field it does not define, and the answer must name
 * that field at its path. Operations that declare no body or query are held to the same rule over HTTP
 * (test/http/http-edges.test.ts).
 */
type JsonSchema = Record<string, any>;
const doc = apiDocument() as unknown as JsonSchema;

const resolve = (schema: JsonSchema): JsonSchema => {
  if (!schema.$ref) return schema;
  const found = (schema.$ref as string).replace(/^#\//, '').split('/').reduce((at: JsonSchema, part: string) => at[part], doc);
  return resolve(found);
};

/** Every object that declares its properties, with its path, through properties, items and unions. */
function objectsOf(schema: JsonSchema, path: (string | number)[] = []): { path: (string | number)[]; schema: JsonSchema }[] {
  const at = resolve(schema);
  const here = at.type === 'object' && at.properties ? [{ path, schema: at }] : [];
  const options = [...(at.anyOf ?? []), ...(at.oneOf ?? [])].filter((option: JsonSchema) => resolve(option).type !== undefined);
  return [
    ...here,
    ...Object.entries((at.properties ?? {}) as Record<string, JsonSchema>).flatMap(([name, p]) => objectsOf(p, [...path, name])),
    ...(at.items ? objectsOf(at.items, [...path, 0]) : []),
    ...options.flatMap((option: JsonSchema) => objectsOf(option, path)),
  ];
}

const valueAt = (value: unknown, path: (string | number)[]): unknown =>
  path.reduce((at: any, step) => (at !== null && typeof at === 'object' ? at[step] : undefined), value);

/** `value` with the field `name` (as JSON would give it: `__proto__` an own key) added to the object at `path`, created if absent. */
function withField(value: unknown, path: (string | number)[], name: string): unknown {
  const copy = structuredClone(value) as any;
  let at = copy;
  path.forEach((step, i) => {
    const array = typeof path[i + 1] === 'number';
    if (at[step] === null || typeof at[step] !== 'object' || Array.isArray(at[step]) !== array) at[step] = array ? [] : {};
    at = at[step];
  });
  Object.defineProperty(at, name, { value: 1, enumerable: true, configurable: true, writable: true });
  return copy;
}

function problemsOf(schema: z.ZodType, value: unknown): { headline: string; errors: FieldError[] } | 'parsed' {
  try {
    parse(schema, value);
    return 'parsed';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const answer = toApiError(error)!;
    return { headline: answer.message, errors: answer.details.errors ?? [] };
  }
}

const NAMES = ['unknownField', '__proto__'];

const bodies = declaredOperations().flatMap((op) => {
  const schema = declaredBody(op.doc);
  if (!schema) return [];
  const documented = doc.paths[openApiPath(op.path)][op.method].requestBody.content['application/json'];
  const examples = Object.values((documented.examples ?? {}) as Record<string, { value: unknown }>).map((example) => example.value);
  return [{ name: `${op.method.toUpperCase()} ${op.path}`, schema, documented: documented.schema as JsonSchema, examples }];
});

const bodyCases = bodies.flatMap((body) => {
  const paths = new Map(objectsOf(body.documented).map((found) => [JSON.stringify(found.path), found.path]));
  return [...paths.values()].flatMap((path) =>
    NAMES.map((field) => ({ ...body, path, field, case: `${body.name} body ${[...path, field].join('.')}` })),
  );
});

describe('every request object says additionalProperties: false in the API document', () => {
  it('finds the objects the issue names', () => {
    const names = bodyCases.map((c) => c.case);
    for (const expected of [
      'POST /checkout/sessions body unknownField',
      'POST /checkout/sessions body customer.unknownField',
      'POST /checkout/sessions body urls.unknownField',
      'POST /checkout/sessions body items.0.unknownField',
      'POST /checkout/sessions body metadata.0.unknownField',
      'POST /checkout/:id/pay body card.unknownField',
      'POST /checkout/:id/pay body shipping.unknownField',
      'POST /withdrawals body destinationDetails.unknownField',
      'POST /disputes/:id/evidence body evidence.unknownField',
      'PUT /webhooks/:id body __proto__',
      'POST /refunds body unknownField',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it.each(bodies)('$name', ({ documented }) => {
    const open = objectsOf(documented).filter(({ schema }) => schema.additionalProperties !== false);
    expect(open.map(({ path }) => path.join('.'))).toEqual([]);
  });
});

describe('a field a body does not define is refused by name, at its path', () => {
  it.each(bodyCases)('$case', ({ schema, examples, path, field }) => {
    const entry = { path: [...path, field], message: `Unknown field: ${field}` };
    // In an example that has the object and is otherwise valid, it is the only problem; elsewhere one of them.
    const clean = examples.filter((example) => problemsOf(schema, example) === 'parsed');
    const holding = clean.filter((example) => typeof valueAt(example, path) === 'object' && valueAt(example, path) !== null);
    if (holding.length) {
      for (const example of holding) expect(problemsOf(schema, withField(example, path, field))).toEqual({ headline: 'Validation failed', errors: [entry] });
    } else {
      const answer = problemsOf(schema, withField(examples[0] ?? {}, path, field));
      expect(answer === 'parsed' ? [] : answer.errors).toContainEqual(entry);
    }
  });
});

const queries = declaredOperations().flatMap((op) => {
  const schema = declaredQuery(op.doc);
  return schema ? NAMES.map((field) => ({ name: `${op.method.toUpperCase()} ${op.path} query ${field}`, schema, field })) : [];
});

describe('a parameter a query does not define is refused by name', () => {
  it('finds the queries of the lists', () => {
    expect(queries.map((q) => q.name)).toEqual(expect.arrayContaining(['GET /refunds query unknownField', 'GET /webhooks/events query unknownField', 'GET /checkout/sessions query __proto__']));
  });

  it.each(queries)('$name', ({ schema, field }) => {
    // As Koa gives a query: an object without a prototype, each parameter an own key.
    const query = Object.assign(Object.create(null), { limit: '5' });
    Object.defineProperty(query, field, { value: 'x', enumerable: true });
    expect(problemsOf(schema, query)).toEqual({ headline: 'Validation failed', errors: [{ path: [field], message: `Unknown field: ${field}` }] });
  });
});

describe('where the mistake would move the wrong money, the entry teaches', () => {
  const body = (operationId: string) => declaredBody(declaredOperations().find((op) => op.operationId === operationId)!.doc)!;
  const session = { description: 'Order', customer: { email: 'a@b.co' }, items: [{ name: 'Beans', price: 24.5, quantity: 1 }] };

  it.each(['amount', 'amountInCents'])('%s on a refund: a refund is of the whole session', (field) => {
    expect(problemsOf(body('createRefund'), { checkoutSessionId: 'x', [field]: 10 })).toEqual({
      headline: 'Validation failed',
      errors: [{ path: [field], message: `Unknown field: ${field}. A refund is always of the whole session, its total (one refund per session): leave the amount out` }],
    });
  });

  it.each(['amount', 'amountInCents', 'total'])('%s on a session: the amount is its items’', (field) => {
    expect(problemsOf(body('createCheckoutSession'), { ...session, [field]: 5000 })).toEqual({
      headline: 'Validation failed',
      errors: [{ path: [field], message: `Unknown field: ${field}. A session's amount is its items' prices times their quantities, plus the fee: send items` }],
    });
  });

  it('currency on a session: USD is taken, any other is refused saying the service charges in US dollars', () => {
    expect(problemsOf(body('createCheckoutSession'), { ...session, currency: 'USD' })).toBe('parsed');
    for (const currency of ['EUR', 'usd', null, 840]) {
      expect(problemsOf(body('createCheckoutSession'), { ...session, currency })).toEqual({
        headline: 'Validation failed',
        errors: [{ path: ['currency'], message: 'Currency must be USD: this service charges in US dollars only' }],
      });
    }
  });

  it('advice is for the top level only, and a field named like an Object method is just unknown', () => {
    const refund = body('createRefund');
    expect(problemsOf(refund, JSON.parse('{"checkoutSessionId": "x", "toString": 1, "__proto__": 2}'))).toEqual({
      headline: 'Validation failed',
      errors: [
        { path: ['toString'], message: 'Unknown field: toString' },
        { path: ['__proto__'], message: 'Unknown field: __proto__' },
      ],
    });
    expect(problemsOf(body('createCheckoutSession'), { ...session, items: [{ ...session.items[0], amount: 1 }] })).toEqual({
      headline: 'Validation failed',
      errors: [{ path: ['items', 0, 'amount'], message: 'Unknown field: amount' }],
    });
  });

  it("metadata's object-form keys stay the merchant's, but not __proto__", () => {
    const schema = body('createCheckoutSession');
    expect(problemsOf(schema, { ...session, metadata: { anyKey: 1, amount: 'x' } })).toBe('parsed');
    for (const metadata of [JSON.parse('{"__proto__": "x"}'), [{ key: '__proto__', value: 'x' }]]) {
      const answer = problemsOf(schema, { ...session, metadata });
      expect(answer).toEqual({ headline: 'Validation failed', errors: [{ path: Array.isArray(metadata) ? ['metadata', 0, 'key'] : ['metadata', '__proto__'], message: 'Metadata key __proto__ is reserved' }] });
    }
  });
});
