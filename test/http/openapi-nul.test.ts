/**
 * The API document says U+0000 is refused in every request string (src/api/openapi/document.ts), once:
 * as a pattern of its own, or by a pattern of the schema's that cannot match it. A path id said it twice,
 * and a fuzzer asked for an invalid one tried a NUL, which no URL carries, and gave up on the operation.
 */
import { apiDocument } from '../../src/api/openapi/document.js';
import { admitsNul } from '../../src/http/openapi/no-nul.js';

const NO_NUL = '^[^\\u0000]*$';

/** Every string schema under `node` (request parameters and bodies), with where it is. */
function strings(node: unknown, at: string, out: { at: string; schema: Record<string, any> }[] = []) {
  if (Array.isArray(node)) node.forEach((item, i) => strings(item, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    const schema = node as Record<string, any>;
    if (schema.type === 'string') out.push({ at, schema });
    for (const [key, value] of Object.entries(schema)) if (key !== 'allOf') strings(value, `${at}/${key}`, out);
  }
  return out;
}

describe('admitsNul', () => {
  it.each([
    ['^wh_[0-9a-f]{32}$', false],
    ['^[\\s-]*(?:\\d[\\s-]*){12,19}$', false],
    ['^(?:[A-Za-z0-9_\'+\\-]+\\.)*[A-Za-z0-9]@x$', false],
    ['^(?:a|b)$', false],
    ['^a.c$', true],
    ['^[^a]*$', true],
    ['^\\S+$', true],
    ['^a$|^b', true],
    ['wh_[0-9a-f]{32}', true],
    ['^a\\$', true],
  ])('%s: %s', (pattern, expected) => {
    expect(admitsNul(pattern)).toBe(expected);
  });
});

describe('the document on U+0000', () => {
  const doc = apiDocument() as unknown as { paths: Record<string, Record<string, { parameters?: unknown[]; requestBody?: unknown }>>; components: { schemas: Record<string, unknown> } };
  const requestStrings = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, op]) => [...strings(op.parameters ?? [], `${method} ${path} parameters`), ...strings(op.requestBody ?? {}, `${method} ${path} body`)]),
  );

  it('refuses it in every request string that could hold it, and only once', () => {
    const wrong = requestStrings.filter(({ schema }) => {
      const own = typeof schema.pattern === 'string' && !admitsNul(schema.pattern);
      const known = schema.enum !== undefined || schema.const !== undefined;
      const said = (schema.allOf ?? []).some((part: { pattern?: string }) => part.pattern === NO_NUL);
      return said === (own || known);
    });
    expect(wrong.map((w) => w.at)).toEqual([]);
    expect(requestStrings.length).toBeGreaterThan(50);
  });

  it('leaves path ids with their own pattern alone', () => {
    const ids = requestStrings.filter(({ at, schema }) => at.includes('parameters') && typeof schema.pattern === 'string' && schema.pattern.startsWith('^wh_'));
    expect(ids.length).toBeGreaterThan(0);
    for (const { schema } of ids) expect(schema.allOf).toBeUndefined();
  });
});
