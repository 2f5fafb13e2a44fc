/**
 * The intake's bounds, each met on purpose with small settings: what the process holds at once, one
 * address's share of it, one address's unfinished bodies, and the body's deadline. Client addresses are
 * distinct loopback addresses (127.0.0.2, .3, …), each a client of its own, as the budgets see it.
 */
import { intakeBudget } from '../../src/http/intake-budget.js';
import { sessionBody } from '../support/payments.js';
import { gauge, startUpload, type Upload } from '../support/upload.js';
import { eventually } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const MiB = 1024 * 1024;
// The read deadline at 8 s: the budget tests hold uploads open while they make other requests, and a busy
// machine must not time the held ones out before the test has made its point.
const stack = useStack(
  { BODY_BYTES_IN_FLIGHT: String(2 * MiB), BODY_BYTES_PER_CLIENT: String(MiB), BODY_UNFINISHED_PER_CLIENT: '3', BODY_READ_TIMEOUT: '8s' },
  { worker: false },
);
const biz = useBusiness(stack);

/** A session create of about `bytes`, too long a description: answered 400 in full when it is let in. */
const bigBody = (bytes: number) => JSON.stringify(sessionBody({ description: 'y'.repeat(bytes) }));

const create = (body: string, localAddress?: string) =>
  stack.http.request('POST', '/api/checkout/sessions', { key: biz.testKey, rawBody: body, headers: { 'Content-Type': 'application/json' }, localAddress, expect5xx: true });

/** An upload from `localAddress` of a `size`-byte body, of which `sent` bytes are sent and held until `finish`. */
async function holding(localAddress: string, size: number, sent: number, opts: { keepAlive?: boolean } = {}): Promise<Upload & { rest: string }> {
  const body = bigBody(size - 200);
  const upload = startUpload(stack.origin, '/api/checkout/sessions', { key: biz.testKey, declaredLength: Buffer.byteLength(body), localAddress, ...opts });
  const before = await gauge('http_request_body_bytes_held');
  upload.send(body.slice(0, sent));
  await eventually(`${sent} bytes from ${localAddress} to be held`, async () => (await gauge('http_request_body_bytes_held')) >= before + sent);
  return { ...upload, rest: body.slice(sent) };
}

function expect503(answer: { status: number; headers: Record<string, unknown>; body: any }) {
  expect(answer.status).toBe(503);
  expect(answer.headers['retry-after']).toBe('1');
  expect(answer.body).toEqual({
    success: false,
    error: { type: 'service_unavailable', message: 'The service is temporarily unavailable; please retry', retryAfter: 1, requestId: expect.stringMatching(/^req_/) },
  });
}

describe('one address past its share (BODY_BYTES_PER_CLIENT)', () => {
  it('gets 503 with Retry-After, while another address sends a body as large and is answered', async () => {
    const held = await holding('127.0.0.2', 900_000, 800_000);
    try {
      expect503(await create(bigBody(400_000), '127.0.0.2'));
      const other = await create(bigBody(600_000), '127.0.0.1');
      expect(other.status).toBe(400); // let in and validated: the description is too long
    } finally {
      held.finish(held.rest);
    }
    expect((await held.answer).status).toBe(400);
    // Its bytes are back: the same address is let in again.
    expect((await create(bigBody(400_000), '127.0.0.2')).status).toBe(400);
  });
});

describe('the process past its budget (BODY_BYTES_IN_FLIGHT)', () => {
  it('refuses a body that does not fit with 503, still takes one that does, and takes bodies again once answered', async () => {
    const uploads = [await holding('127.0.0.3', 1_000_000, 950_000), await holding('127.0.0.4', 1_000_000, 950_000)];
    try {
      expect503(await create(bigBody(400_000), '127.0.0.5'));
      expect((await create(JSON.stringify(sessionBody()), '127.0.0.5')).status).toBe(201);
    } finally {
      uploads.forEach((u) => u.finish(u.rest));
    }
    for (const u of uploads) expect((await u.answer).status).toBe(400);
    expect((await create(bigBody(400_000), '127.0.0.5')).status).toBe(400);
    expect(await gauge('http_request_body_bytes_held')).toBe(0);
  });
});

describe('one address at its unfinished bodies (BODY_UNFINISHED_PER_CLIENT)', () => {
  it('gets 503 for one more, and every other address goes on', async () => {
    const open = await Promise.all([1, 2, 3].map(() => holding('127.0.0.6', 1_000, 10)));
    try {
      expect503(await create(JSON.stringify(sessionBody()), '127.0.0.6'));
      expect((await create(JSON.stringify(sessionBody()), '127.0.0.7')).status).toBe(201);
    } finally {
      open.forEach((u) => u.abort());
    }
    await eventually('the aborted bodies to be let go', async () => (await gauge('http_request_body_clients')) === 0);
    expect((await create(JSON.stringify(sessionBody()), '127.0.0.6')).status).toBe(201);
  });
});

describe('the body deadline (BODY_READ_TIMEOUT)', () => {
  it('answers a body still unfinished at the deadline 408 and closes its connection, giving its bytes back', async () => {
    // The client asks to keep the connection and never sends the rest: only the service can end it.
    const slow = await holding('127.0.0.8', 5_000, 100, { keepAlive: true });
    const outcome = await slow.answer;
    expect(outcome.status).toBe(408);
    expect(outcome.ms).toBeGreaterThanOrEqual(7_900);
    expect(outcome.ms).toBeLessThan(11_000);
    expect(outcome.body.error).toEqual({ type: 'request_timeout', message: 'The request was not received in time; please send it again', requestId: expect.stringMatching(/^req_/) });
    expect(outcome.headers.connection).toBe('close');
    // Closed once the answer is written; left open, the connection would wait for the unsent bytes.
    const closedAt = await Promise.race([slow.closed, new Promise<'still open'>((resolve) => setTimeout(resolve, 5_000, 'still open').unref())]);
    expect(closedAt).toEqual(expect.any(Number));
    expect(await gauge('http_request_body_bytes_held')).toBe(0);
  });

  it('answers a body sent slowly but whole within the deadline', async () => {
    const body = JSON.stringify(sessionBody());
    const upload = startUpload(stack.origin, '/api/checkout/sessions', { key: biz.testKey, declaredLength: Buffer.byteLength(body), localAddress: '127.0.0.9' });
    for (const part of [body.slice(0, 40), body.slice(40, 80)]) {
      upload.send(part);
      await new Promise((r) => setTimeout(r, 500));
    }
    upload.finish(body.slice(80));
    expect((await upload.answer).status).toBe(201);
  });
});

describe('bodies refused before they are read', () => {
  it('refuses a chunked body once it passes 1 MB', async () => {
    const upload = startUpload(stack.origin, '/api/checkout/sessions', { key: biz.testKey, localAddress: '127.0.0.10' });
    upload.finish(bigBody(MiB + 10));
    const outcome = await upload.answer;
    expect(outcome.status).toBe(400);
    expect(outcome.body.error).toMatchObject({ type: 'validation_error', message: 'Request body must not exceed 1 MB' });
  });

  it('refuses a compressed body: Content-Encoding must be identity', async () => {
    const res = await stack.http.request('POST', '/api/checkout/sessions', {
      key: biz.testKey,
      rawBody: JSON.stringify(sessionBody()),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Content-Encoding must be identity' });
  });
});

describe('intakeBudget', () => {
  const limits = { processBytes: 100, clientBytes: 60, clientBodies: 2 };

  it('counts what arrives against the process and the address, and a release gives it back once', () => {
    const budget = intakeBudget(limits);
    const a = budget.open('a');
    const b = budget.open('b');
    if (typeof a === 'string' || typeof b === 'string') throw new Error('refused');
    expect(a.take(50)).toBeNull();
    expect(a.take(20)).toBe('client'); // 70 would pass a's 60
    expect(b.take(45)).toBeNull();
    expect(b.take(10)).toBe('process'); // b's 55 fits its share, but 105 would pass the process's 100
    expect(b.take(5)).toBeNull();
    expect(budget.held()).toBe(100);
    a.release();
    a.release();
    expect(budget.held()).toBe(50);
    expect(budget.peak()).toBe(100);
  });

  it('refuses a third unfinished body of one address, and counts a finished one out', () => {
    const budget = intakeBudget(limits);
    const first = budget.open('a');
    budget.open('a');
    expect(budget.open('a')).toBe('client');
    if (typeof first === 'string') throw new Error('refused');
    first.finish();
    expect(budget.open('a')).not.toBe('client');
    expect(budget.client('a')).toEqual({ bytes: 0, bodies: 2 });
  });

  it('refuses past the process budget whichever address asks, and forgets an address with nothing open', () => {
    const budget = intakeBudget({ ...limits, clientBytes: 100 });
    const a = budget.open('a');
    const b = budget.open('b');
    if (typeof a === 'string' || typeof b === 'string') throw new Error('refused');
    expect(a.take(90)).toBeNull();
    expect(b.take(20)).toBe('process');
    a.release();
    expect(b.take(20)).toBeNull();
    b.release();
    expect(budget.clients()).toBe(0);
    expect(budget.held()).toBe(0);
  });
});
