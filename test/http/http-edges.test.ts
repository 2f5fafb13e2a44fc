import http from 'node:http';
import https from 'node:https';
import { startStack, type TestStack } from '../support/stack.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { declaredOperations } from '../../src/api/routes.js';
import { declaredBody, declaredQuery } from '../../src/http/operation.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const port = () => new URL(stack.origin).port;

describe('HTTPS only', () => {
  it('a plain http:// request to the API port fails: 400 in plain text, not the API (test/http/plain-http.test.ts)', async () => {
    const attempt = new Promise<{ status: number; type?: string }>((resolve, reject) => {
      const req = http.get(`http://localhost:${port()}/api/checkout/sessions`, (res) => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] }));
      req.on('error', reject);
      req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    });
    await expect(attempt).resolves.toEqual({ status: 400, type: 'text/plain; charset=utf-8' });
  });

  it('a TLS client that does not trust the CA is refused by the handshake', async () => {
    const attempt = new Promise((resolve, reject) => {
      https.get(`${stack.origin}/api/checkout/sessions`, resolve).on('error', reject);
    });
    await expect(attempt).rejects.toThrow(/self-signed|certificate/i);
  });
});

describe('one error path', () => {
  it('an unknown route is 404 not_found in the envelope, with X-Request-Id matching requestId', async () => {
    const res = await stack.http.get('/api/nothing-here', { key: biz.testKey });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { type: 'not_found', message: 'Resource not found', requestId: expect.stringMatching(/^req_/) } });
    expect(res.headers['x-request-id']).toBe(res.body.error.requestId);
  });

  it('a wrong method on a known path is 405', async () => {
    const res = await stack.http.delete('/api/checkout/sessions', { key: biz.testKey });
    expect(res.status).toBe(405);
    expect(res.body.error.type).toBe('method_not_allowed');
  });

  it('malformed JSON is 400 validation_error', async () => {
    const res = await stack.http.request('POST', '/api/checkout/sessions', {
      key: biz.testKey,
      rawBody: '{"description": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Request body must be valid JSON' });
  });

  // Valid JSON: refused as a field the body does not define, by name, not as if it were no JSON at all.
  const session = '"description": "x", "customer": {"email": "a@b.co"}, "items": [{"name": "n", "price": 1, "quantity": 1}]';
  it.each([
    ['a literal __proto__ key', `{${session}, "__proto__": {"admin": true}}`, ['__proto__'], 'Unknown field: __proto__'],
    ['a __proto__ key spelled with an escape', `{${session}, "\\u005f_proto__": {"admin": true}}`, ['__proto__'], 'Unknown field: __proto__'],
    ['a nested __proto__ key', `{${session}, "customer": {"email": "a@b.co", "__proto__": []}}`, ['customer', '__proto__'], 'Unknown field: __proto__'],
    ['a __proto__ metadata key', `{${session}, "metadata": {"__proto__": {"admin": true}}}`, ['metadata', '__proto__'], 'Metadata key __proto__ is reserved'],
  ])('%s is refused as 400 validation_error naming it', async (_, rawBody, path, message) => {
    const res = await stack.http.request('POST', '/api/checkout/sessions', { key: biz.testKey, rawBody, headers: { 'Content-Type': 'application/json' } });
    expect([res.status, res.body.error]).toEqual([400, { type: 'validation_error', message: 'Validation failed', requestId: expect.any(String), errors: [{ path, message }] }]);
  });

  it.each([
    ['a missing Content-Type', {}],
    ['a form Content-Type', { 'Content-Type': 'application/x-www-form-urlencoded' }],
    ['a text Content-Type', { 'Content-Type': 'text/plain' }],
  ])('%s is 400 validation_error', async (_, headers) => {
    const res = await stack.http.request('POST', '/api/checkout/sessions', { key: biz.testKey, rawBody: '{"a":1}', headers });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Content-Type must be application/json' });
  });

  it('a body over 1 MB is 400 validation_error', async () => {
    const big = JSON.stringify({ description: 'x'.repeat(1024 * 1024 + 10) });
    const res = await stack.http.request('POST', '/api/checkout/sessions', {
      key: biz.testKey,
      rawBody: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Request body must not exceed 1 MB' });
  });

  it('every response carries X-Request-Id and API-Version', async () => {
    const res = await stack.http.get('/api/checkout/sessions', { key: biz.testKey });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.headers['api-version']).toBe('v1');
  });
});

describe('behind a TLS-terminating proxy (TRUST_PROXY=true)', () => {
  let proxied: TestStack;
  beforeAll(async () => {
    proxied = await startStack({ TRUST_PROXY: 'true', TRUSTED_PROXIES: '127.0.0.1' }, { worker: false });
  });
  afterAll(async () => proxied?.stop());

  it('refuses a request whose X-Forwarded-Proto is not https with 403 in the envelope', async () => {
    const res = await proxied.http.get('/api/checkout/sessions', { key: biz.testKey, headers: { 'X-Forwarded-Proto': 'http' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', message: 'HTTPS is required' });
  });

  it('serves a request forwarded as https', async () => {
    const res = await proxied.http.get('/api/checkout/sessions', { key: biz.testKey, headers: { 'X-Forwarded-Proto': 'https' } });
    expect(res.status).toBe(200);
  });
});

/**
 * An operation that declares no query string, or no body, defines no field in it: whatever is sent there is
 * unknown and refused by name, before the operation does anything (the declared ones: test/domain/unknown-fields.test.ts).
 */
describe('a body or query an operation does not declare', () => {
  const ids: Record<string, string> = { '/checkout/:id/pay': '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e' };
  const url = (path: string) => `/api${path.replace(':id', ids[path] ?? 'x_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e')}`;
  const refused = (field: string) => [400, { type: 'validation_error', message: 'Validation failed', requestId: expect.any(String), errors: [{ path: [field], message: `Unknown field: ${field}` }] }];
  const operations = declaredOperations();
  const withoutQuery = operations.filter((op) => !declaredQuery(op.doc)).map((op) => ({ name: `${op.method.toUpperCase()} ${op.path}`, op }));
  const withoutBody = operations.filter((op) => !declaredBody(op.doc) && op.method !== 'get').map((op) => ({ name: `${op.method.toUpperCase()} ${op.path}`, op }));

  it('are found: the reads, the cancels, the delete', () => {
    expect(withoutQuery.map((c) => c.name)).toEqual(expect.arrayContaining(['GET /balance', 'GET /refunds/:id', 'POST /refunds']));
    expect(withoutBody.map((c) => c.name)).toEqual(expect.arrayContaining(['POST /withdrawals/:id/cancel', 'POST /disputes/:id/close', 'DELETE /webhooks/:id']));
  });

  it.each(withoutQuery)('$name refuses a query parameter', async ({ op }) => {
    const res = await stack.http.request(op.method.toUpperCase(), `${url(op.path)}?unknownField=1`, { key: biz.testKey });
    expect([res.status, res.body.error]).toEqual(refused('unknownField'));
  });

  it.each(withoutBody)('$name refuses a body field, and takes {} or no body as before', async ({ op }) => {
    const res = await stack.http.request(op.method.toUpperCase(), url(op.path), { key: biz.testKey, body: { reason: 'x' } });
    expect([res.status, res.body.error]).toEqual(refused('reason'));
    for (const body of [{}, undefined]) {
      const answer = await stack.http.request(op.method.toUpperCase(), url(op.path), { key: biz.testKey, body });
      expect(answer.body.error?.errors).toBeUndefined();
    }
  });
});
