import { describe, expect, it, afterAll, beforeAll } from '@jest/globals';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createHttpClient, type HttpClient } from '../support/http.js';

/**
 * The test client fails a test on any 5xx it did not ask for. The API document lists 500 and 503 for
 * every authenticated operation, so the document check alone let a crash pass as a documented answer.
 */
let server: https.Server;
let http: HttpClient;
const envelope = (type: string, message: string) => JSON.stringify({ success: false, error: { type, message, requestId: 'req_0c5a8e61a3f14a5e9d4b7c2a1f0e9d8c' } });

beforeAll(async () => {
  server = https.createServer({ cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) }, (req, res) => {
    const status = Number(new URL(req.url!, 'https://x.invalid').searchParams.get('status') ?? 200);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(status >= 500 ? envelope('api_error', 'Internal server error') : '{"status":"ok"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  http = createHttpClient(`https://localhost:${(server.address() as AddressInfo).port}`, readFileSync(process.env.TEST_TLS_CA!));
});
afterAll(async () => {
  http?.close();
  await new Promise((r) => server?.close(r));
});

describe('the test client and server errors', () => {
  it.each([500, 502, 503])('rejects a %i nobody asked for, naming the method, path, status and body', async (status) => {
    await expect(http.get(`/anything?status=${status}`)).rejects.toThrow(
      `GET /anything?status=${status} answered ${status}, a server error this test did not expect. Body: ${envelope('api_error', 'Internal server error')}`,
    );
  });

  it('rejects a 500 on an /api operation that documents 500, before the document check could accept it', async () => {
    await expect(http.post('/api/checkout/sessions?status=500', {}, { key: 'sk_test_x' })).rejects.toThrow(
      'POST /api/checkout/sessions?status=500 answered 500, a server error this test did not expect',
    );
  });

  it('hands the answer to a test that asks for a 5xx, which then asserts it', async () => {
    const res = await http.get('/anything?status=503', { expect5xx: true });
    expect(res.status).toBe(503);
    expect(res.body.error.type).toBe('api_error');
  });

  it('leaves other answers alone', async () => {
    expect((await http.get('/anything?status=200')).body).toEqual({ status: 'ok' });
    expect((await http.get('/anything?status=404')).status).toBe(404);
  });
});
