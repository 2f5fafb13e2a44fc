import { describe, expect, it } from '@jest/globals';
import { apiDocument } from '../../src/api/openapi/document.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

describe('GET /api/openapi.json', () => {
  it.each(['/api/openapi.json', '/api/v1/openapi.json'])('%s is the generated document, without an API key', async (path) => {
    const res = await stack.http.get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual(JSON.parse(JSON.stringify(apiDocument())));
  });

  it('answers a revalidation with 304', async () => {
    const first = await stack.http.get('/api/openapi.json');
    const again = await stack.http.get('/api/openapi.json', { headers: { 'If-None-Match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
  });

  it('is 405 with Allow for another method', async () => {
    const res = await stack.http.post('/api/openapi.json', {});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('HEAD, GET');
    expect(res.body.error.type).toBe('method_not_allowed');
  });
});

describe('GET /docs', () => {
  it('is the reference page, which loads Redoc from our own origin under a strict CSP', async () => {
    const res = await stack.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<redoc spec-url="/api/openapi.json"');
    expect(res.text).toContain('<script src="/docs/redoc.standalone.js"></script>');
    expect(res.text).not.toMatch(/<script>|https?:\/\//);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
  });

  it('serves the Redoc bundle from the installed package', async () => {
    const res = await stack.http.get('/docs/redoc.standalone.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.text.length).toBeGreaterThan(500_000);
  });
});

describe('methods a path does not have', () => {
  it('is 405 with the Allow header', async () => {
    const res = await stack.http.delete('/api/checkout/sessions', { key: biz.testKey });
    expect(res.status).toBe(405);
    expect(String(res.headers.allow).split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s /api/webhooks/events is 405, not a search for an endpoint called "events"', async (method) => {
    const res = await stack.http.request(method, '/api/webhooks/events', { key: biz.testKey, body: method === 'DELETE' ? undefined : {} });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('HEAD, GET');
    expect(res.body.error).toMatchObject({ type: 'method_not_allowed', message: 'Method not allowed' });
  });

  it('OPTIONS /api/webhooks/events advertises only its own methods', async () => {
    const res = await stack.http.request('OPTIONS', '/api/webhooks/events', { key: biz.testKey });
    expect(res.status).toBe(200);
    expect(res.headers.allow).toBe('HEAD, GET');
  });
});
