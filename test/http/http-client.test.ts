import { describe, expect, it, afterAll, beforeAll, beforeEach } from '@jest/globals';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { createHttpClient, type HttpClient, type Outcome } from '../support/http.js';

/**
 * The test client fails a test on any 5xx it did not ask for. The API document lists 500 and 503 for
 * every authenticated operation, so the document check alone let a crash pass as a documented answer.
 * With a tally (the soak, the rehearsal) it reports the same findings instead of failing.
 */
const BRIEF_KEEP_ALIVE_SERVER = `
  const s = require('node:https').createServer({ cert: require('node:fs').readFileSync(process.env.TEST_TLS_CERT), key: require('node:fs').readFileSync(process.env.TEST_TLS_KEY) }, (_q, r) => r.end('{"n":1}'));
  s.keepAliveTimeout = 2000; // announced as 2 s, so the client keeps the socket; closed 1 s after that
  s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port)));`;

let server: https.Server;
let http: HttpClient;
const envelope = (type: string, message: string) => JSON.stringify({ success: false, error: { type, message, requestId: 'req_0c5a8e61a3f14a5e9d4b7c2a1f0e9d8c' } });

beforeAll(async () => {
  server = https.createServer({ cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) }, (req, res) => {
    const status = Number(new URL(req.url!, 'https://x.invalid').searchParams.get('status') ?? 200);
    if (req.url!.includes('hang')) return; // never answers
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

describe('the test client with a tally', () => {
  let outcomes: Outcome[];
  let tallied: HttpClient;
  beforeAll(() => {
    tallied = createHttpClient(`https://localhost:${(server.address() as AddressInfo).port}`, readFileSync(process.env.TEST_TLS_CA!), {
      timeoutMs: 300,
      tally: (o) => void outcomes.push(o),
    });
  });
  beforeEach(() => void (outcomes = []));
  afterAll(() => tallied?.close());

  it('reports a 5xx nobody asked for, and returns the answer', async () => {
    expect((await tallied.get('/anything?status=500')).status).toBe(500);
    expect(outcomes).toEqual([expect.objectContaining({ method: 'GET', path: '/anything?status=500', serverError: true, unaccepted: false, noAnswer: null })]);
  });

  it('reports an /api answer the API document does not describe', async () => {
    await tallied.get('/api/balance', { key: 'sk_test_x' });
    expect(outcomes[0].documentProblems).toContainEqual(expect.stringContaining('GET /api/balance 200: body does not match'));
    expect(outcomes[0].serverError).toBe(false);
  });

  it("reports an answer outside the request's accept, any 2xx unless it names others", async () => {
    await tallied.get('/anything?status=404');
    await tallied.get('/anything?status=404', { accept: [404] });
    await tallied.get('/anything?status=200', { accept: [{ status: 404 }] });
    expect(outcomes.map((o) => o.unaccepted)).toEqual([true, false, true]);
  });

  it('answers status 0 when no answer comes in time, and says why', async () => {
    expect((await tallied.get('/hang')).status).toBe(0);
    expect(outcomes).toEqual([expect.objectContaining({ noAnswer: 'no answer in 0.3 s', serverError: false })]);
  });
});

describe('the test client without a tally', () => {
  it("rejects an answer outside the request's accept", async () => {
    await expect(http.get('/anything?status=404', { accept: [200] })).rejects.toThrow('GET /anything?status=404 answered 404, not [200]');
    expect((await http.get('/anything?status=404', { accept: [404] })).status).toBe(404);
  });

  it('sends a request once more on a new socket when the server closed the reused one while this process was busy', async () => {
    // The server in a process of its own, so its keep-alive timer runs while this one is blocked.
    const server = spawn(process.execPath, ['-e', BRIEF_KEEP_ALIVE_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve) => server.stdout.once('data', (d: Buffer) => resolve(Number(String(d)))));
    const client = createHttpClient(`https://localhost:${port}`, readFileSync(process.env.TEST_TLS_CA!));
    try {
      expect((await client.get('/')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 20)); // the socket back in the agent's pool
      // Busy past the server's keep-alive, as a loaded test process is: the server's close goes unread.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3_500);
      expect((await client.get('/')).body).toEqual({ n: 1 });
    } finally {
      client.close();
      server.kill();
    }
  });

  it('connects where `connectTo` says, checking TLS against the origin\'s name', async () => {
    const elsewhere = https.createServer({ cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) }, (_req, res) => res.end('{"at":"127.0.0.2"}'));
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.2', resolve));
    const origin = `https://localhost:${(elsewhere.address() as AddressInfo).port}`;
    const ca = readFileSync(process.env.TEST_TLS_CA!);
    const direct = createHttpClient(origin, ca);
    const redirected = createHttpClient(origin, ca, { connectTo: '127.0.0.2' });
    try {
      await expect(direct.get('/')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      expect((await redirected.get('/')).body).toEqual({ at: '127.0.0.2' });
    } finally {
      direct.close();
      redirected.close();
      await new Promise((r) => elsewhere.close(r));
    }
  });
});
