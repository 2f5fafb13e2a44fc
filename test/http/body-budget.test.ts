import { readFileSync } from 'node:fs';
import https from 'node:https';
import { bodyBudget } from '../../src/http/body.js';
import { sessionBody } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';

// The smallest budget the configuration allows: 1 MB of request bodies held at once by the process.
const stack = useStack({ BODY_BYTES_IN_FLIGHT: String(1024 * 1024) }, { worker: false });
const biz = useBusiness(stack);

/** A session create whose declared 600 KB body is only partly sent until `finish`: it holds its reservation. */
function slowUpload() {
  const ca = readFileSync(process.env.TEST_TLS_CA!);
  const body = JSON.stringify({ description: 'x'.repeat(600 * 1024), items: [] });
  const req = https.request(new URL('/api/checkout/sessions', stack.origin), {
    method: 'POST',
    ca,
    headers: { Authorization: `Bearer ${biz.testKey}`, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
  });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 1024));
  return { answer, finish: () => req.end(body.slice(1024)) };
}

const bigBody = () => sessionBody({ description: 'y'.repeat(600 * 1024) });

describe('request bodies held at once are bounded (BODY_BYTES_IN_FLIGHT)', () => {
  it('refuses a body past the budget with 503 and Retry-After, and takes bodies again once the held one is answered', async () => {
    const held = slowUpload();
    try {
      await refusedWhileHeld();
    } finally {
      held.finish();
    }
    const first = await held.answer;
    expect(first.status).toBe(400); // no items: a validation error, answered in full
    // Its 600 KB are given back: the same large body is taken now (a description over the limit is a 400, not a 503).
    const again = await stack.http.post('/api/checkout/sessions', bigBody(), { key: biz.testKey });
    expect(again.status).toBe(400);
    expect(again.body.error.type).toBe('validation_error');
  });
});

/** While the slow upload holds 600 KB of the 1 MB: a large body is refused, a small one still fits. */
async function refusedWhileHeld() {
  await new Promise((r) => setTimeout(r, 300)); // its headers are in: 600 KB is reserved
  const refused = await stack.http.post('/api/checkout/sessions', bigBody(), { key: biz.testKey, expect5xx: true });
  expect(refused.status).toBe(503);
  expect(refused.headers['retry-after']).toBe('1');
  expect(refused.body).toEqual({
    success: false,
    error: { type: 'service_unavailable', message: 'The service is temporarily unavailable; please retry', retryAfter: 1, requestId: expect.stringMatching(/^req_/) },
  });
  // A small body still fits beside the held one.
  const small = await stack.http.post('/api/checkout/sessions', sessionBody(), { key: biz.testKey });
  expect(small.status).toBe(201);
}

describe('bodyBudget', () => {
  it('reserves while the bytes fit, and a release gives them back exactly once', () => {
    const budget = bodyBudget(100);
    const a = budget.reserve(60)!;
    expect(budget.reserve(50)).toBeNull();
    const b = budget.reserve(40)!;
    expect(budget.held()).toBe(100);
    a.release();
    a.release();
    expect(budget.held()).toBe(40);
    b.release();
    expect(budget.reserve(100)).not.toBeNull();
  });
});
