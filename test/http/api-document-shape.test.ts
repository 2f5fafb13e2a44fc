import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/api/app.js';
import type { AppDeps } from '../../src/modules/app-deps.js';
import { apiDocument } from '../../src/api/openapi/document.js';
import { documentProblems, newValidator } from '../support/api-document.js';

const doc = apiDocument() as any;
const operations = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
  Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op })),
);

describe('the API document', () => {
  it('is OpenAPI 3.1 with the service at /api/v1 and /api', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual(['/api/v1', '/api']);
  });

  it('describes every operation the service registers, and nothing else', () => {
    // The routers of the real app, read off its middleware (each router's `routes()` carries its router).
    const app = createApp({ config: loadConfig({ NODE_ENV: 'test', WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }), log: pino({ level: 'silent' }) } as unknown as AppDeps);
    const registered = new Set<string>();
    for (const middleware of app.middleware as { router?: { stack: { path: string; methods: string[] }[] } }[]) {
      for (const layer of middleware.router?.stack ?? []) {
        // A guard registered with `router.all` (every method) answers other methods; it is no operation.
        if (layer.methods.length > 20) continue;
        for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
          const path = layer.path.replace(/^\/api(\/v1)?(?=\/)/, '').replace(/:(\w+)/g, '{$1}');
          if (layer.path.startsWith('/api')) registered.add(`${method} ${path}`);
        }
      }
    }
    const listed = operations.map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect(listed.sort()).toEqual([...registered].sort());
    expect(listed).toContain('POST /checkout/sessions');
  });

  it.each(operations.filter(({ op }) => op.security?.length !== 0))('$method $path needs the API key and lists 401, 403, 429, 500 and 503', ({ op }) => {
    expect(op.security).toBeUndefined(); // the document-wide bearer scheme
    for (const status of ['401', '403', '429', '500', '503']) expect(op.responses[status]).toBeDefined();
  });

  it.each(operations.filter(({ method, op }) => method === 'post' && op.security === undefined))('$method $path takes an Idempotency-Key and lists 409', ({ op }) => {
    expect(op.parameters.some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey')).toBe(true);
    expect(op.responses['409']).toBeDefined();
  });

  it.each(operations.filter(({ path }) => path.includes('{id}')))('$method $path lists 404', ({ op }) => {
    expect(op.responses['404']).toBeDefined();
  });

  it('links only to operations it has, by a parameter they take', () => {
    const ids = new Map(operations.map(({ op }) => [op.operationId, op]));
    const links = operations.flatMap(({ op }) => Object.values<any>(op.responses).flatMap((r) => Object.values<any>(r.links ?? {})));
    expect(links.length).toBeGreaterThan(8);
    for (const link of links) {
      const target = ids.get(link.operationId);
      expect(target).toBeDefined();
      for (const name of Object.keys(link.parameters)) expect(target.parameters.map((p: any) => p.name)).toContain(name);
    }
  });

  it('validates every example against its schema', () => {
    const ajv = newValidator();
    ajv.addSchema(doc, 'doc');
    const checked: string[] = [];
    const check = (at: string, media: any) => {
      for (const [name, example] of Object.entries<any>(media.examples ?? {})) {
        const validate = ajv.compile({ $ref: `doc#${at}/schema` });
        expect({ at, name, ok: validate(example.value), errors: validate.errors ?? null }).toEqual({ at, name, ok: true, errors: null });
        checked.push(`${at} ${name}`);
      }
    };
    const esc = (p: string) => p.replaceAll('~', '~0').replaceAll('/', '~1');
    for (const { path, method, op } of operations) {
      const base = `/paths/${esc(path)}/${method}`;
      if (op.requestBody) check(`${base}/requestBody/content/application~1json`, op.requestBody.content['application/json']);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (response.content) check(`${base}/responses/${status}/content/application~1json`, response.content['application/json']);
      }
    }
    for (const [name, response] of Object.entries<any>(doc.components.responses)) {
      check(`/components/responses/${name}/content/application~1json`, response.content['application/json']);
    }
    expect(checked.length).toBeGreaterThan(60);
  });
});

describe('the no-drift check of the test client', () => {
  const headers = { 'x-request-id': 'req_0c5a8e61a3f14a5e9d4b7c2a1f0e9d8c', 'api-version': 'v1', 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119', 'x-ratelimit-reset': '1795000000', ratelimit: '"balance";r=29;t=60', 'ratelimit-policy': '"balance";q=30;w=60', etag: '"3q2-7wEjR0aY1b8kWb9v0A"' };
  const balance = { availableInCents: 0, reservedInCents: 0, pendingInCents: 0, currency: 'USD', livemode: false, updatedAt: null };

  it('accepts an answer the document describes, on /api and /api/v1', () => {
    expect(documentProblems('GET', '/api/balance', { status: 200, headers, body: { success: true, data: balance } })).toEqual([]);
    expect(documentProblems('GET', '/api/v1/balance', { status: 200, headers, body: { success: true, data: balance } })).toEqual([]);
  });

  it('refuses a field the document does not know, a status it does not list and a missing header', () => {
    expect(documentProblems('GET', '/api/balance', { status: 200, headers, body: { success: true, data: { ...balance, extra: 1 } } })[0]).toMatch(/must NOT have additional properties/);
    expect(documentProblems('GET', '/api/balance', { status: 404, headers, body: {} })[0]).toMatch(/does not list/);
    const { 'x-ratelimit-limit': _gone, ...fewer } = headers;
    expect(documentProblems('GET', '/api/balance', { status: 200, headers: fewer, body: { success: true, data: balance } })).toEqual([
      'GET /api/balance 200: required header X-RateLimit-Limit is missing',
    ]);
  });

  it('takes an unknown path as the 404 and a known path with another method as the 405', () => {
    const notFound = { success: false, error: { type: 'not_found', message: 'Resource not found', requestId: headers['x-request-id'] } };
    expect(documentProblems('GET', '/api/nothing-here', { status: 404, headers, body: notFound })).toEqual([]);
    const notAllowed = { success: false, error: { type: 'method_not_allowed', message: 'Method not allowed', requestId: headers['x-request-id'] } };
    expect(documentProblems('DELETE', '/api/balance', { status: 405, headers: { ...headers, allow: 'HEAD, GET' }, body: notAllowed })).toEqual([]);
  });
});
