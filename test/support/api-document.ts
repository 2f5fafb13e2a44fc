/**
 * Checks an HTTP answer against the API document: the operation must list the status, the body must
 * validate against that response's schema (JSON Schema 2020-12, the OpenAPI 3.1 dialect) and the
 * required headers must be there with valid values. The test client runs it on every `/api` answer, so
 * every integration test is also a test that the document tells the truth.
 *
 * Listed is not the same as acceptable: every authenticated operation lists 500 and 503, so this check
 * passes a crash. The client (http.ts) therefore refuses any 5xx first, unless the request says
 * `expect5xx`.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { apiDocument } from '../../src/api/openapi/document.js';

// ajv-formats is CommonJS: under native ESM its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** A JSON Schema 2020-12 validator (OpenAPI 3.1's dialect) that knows the formats the document uses. */
export function newValidator(): Ajv2020 {
  // Not strict: OpenAPI keywords such as `example` sit beside the schema keywords.
  return addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }));
}

const DOC_ID = 'https://payments.invalid/openapi.json';
const CHECKED_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

interface SchemaHolder {
  schema?: unknown;
}
interface ResponseObject {
  $ref?: string;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: { type?: string } }>;
  content?: Record<string, SchemaHolder>;
}
type Doc = { paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>; components: Record<string, Record<string, unknown>> };

let state: { doc: Doc; ajv: Ajv2020; templates: { template: string; pattern: RegExp }[]; cache: Map<string, ValidateFunction> } | undefined;

function setup() {
  if (state) return state;
  const doc = structuredClone(apiDocument()) as unknown as Doc;
  const ajv = newValidator();
  ajv.addSchema(doc as object, DOC_ID);
  // Literal paths before templated ones: `/reserves/summary` is not `/reserves/{id}`.
  const templates = Object.keys(doc.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);
  state = { doc, ajv, templates, cache: new Map() };
  return state;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Follows a `#/components/...` reference inside the document. */
function follow<T extends { $ref?: string }>(doc: Doc, value: T): { value: T; at: string } {
  if (!value.$ref) return { value, at: '' };
  const parts = value.$ref.replace(/^#\//, '').split('/');
  let target: unknown = doc;
  for (const part of parts) target = (target as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  return { value: target as T, at: value.$ref.replace(/^#/, '') };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** Problems with an answer to `method url` as the document describes it; empty when it conforms. */
export function documentProblems(method: string, url: string, answer: Answer): string[] {
  const path = new URL(url, 'https://x.invalid').pathname;
  if (!CHECKED_METHODS.has(method.toUpperCase()) || !/^\/api(\/|$)/.test(path)) return [];
  const { doc, ajv, templates, cache } = setup();
  const operationPath = path.replace(/^\/api(\/v1)?(?=\/|$)/, '') || '/';
  const match = templates.find((t) => t.pattern.test(operationPath));
  const lower = method.toLowerCase();

  let response: ResponseObject | undefined;
  let at: string;
  if (match && doc.paths[match.template][lower]) {
    const declared = doc.paths[match.template][lower].responses[String(answer.status)];
    if (!declared) return [`${method} ${match.template} answered ${answer.status}, which the document does not list for it`];
    ({ value: response, at } = follow(doc, declared));
    if (!at) at = `/${pointer('paths', match.template, lower, 'responses', String(answer.status))}`;
  } else {
    // No such operation: the service's answer is the document's 404 or 405 for any path.
    const name = match ? 'MethodNotAllowed' : 'RouteNotFound';
    response = doc.components.responses[name] as ResponseObject;
    at = `/components/responses/${name}`;
    const expected = match ? 405 : 404;
    if (answer.status !== expected) return [`${method} ${path} is no operation of the document, yet answered ${answer.status} (expected ${expected})`];
  }

  const problems: string[] = [];
  const schemaAt = `${at}/content/application~1json/schema`;
  if (response.content?.['application/json']?.schema) {
    let validate = cache.get(schemaAt);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOC_ID}#${schemaAt}` });
      cache.set(schemaAt, validate);
    }
    if (!validate(answer.body)) {
      problems.push(`${method} ${path} ${answer.status}: body does not match ${schemaAt}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
    }
  }
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const header = follow(doc, declared).value;
    const value = answer.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) problems.push(`${method} ${path} ${answer.status}: required header ${name} is missing`);
      continue;
    }
    const text = Array.isArray(value) ? value[0] : value;
    const type = header.schema?.type;
    const parsed = type === 'integer' || type === 'number' ? Number(text) : text;
    const headerAt = declared.$ref ? `${declared.$ref.replace(/^#/, '')}/schema` : `${at}/headers/${pointer(name)}/schema`;
    let validate = cache.get(headerAt);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOC_ID}#${headerAt}` });
      cache.set(headerAt, validate);
    }
    if (!validate(parsed)) problems.push(`${method} ${path} ${answer.status}: header ${name}=${text} does not match: ${ajv.errorsText(validate.errors)}`);
  }
  return problems;
}
