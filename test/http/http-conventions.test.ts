/**
 * The HTTP conventions newer than the spec against the real stack: the IETF RateLimit
 * header fields beside the spec's X-RateLimit-*, and conditional reads (ETag, If-None-Match, 304).
 * Idempotency-Key's 409 and 422 are in idempotency.test.ts.
 */
import type { HttpResponse } from '../support/http.js';
import { createSession, eventually, paidSession, pay } from '../support/payments.js';
import { addWalletMethod, creditAvailable, testMode, WALLET_EMAIL } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack();

/** The two IETF fields, parsed (draft-ietf-httpapi-ratelimit-headers-11 syntax, one policy each). */
function ietf(res: HttpResponse) {
  const policy = /^"([a-z-]+)";q=(\d+);w=(\d+)$/.exec(String(res.headers['ratelimit-policy']));
  const limit = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(String(res.headers.ratelimit));
  if (!policy || !limit) throw new Error(`malformed RateLimit fields: ${res.headers['ratelimit-policy']} / ${res.headers.ratelimit}`);
  return { name: policy[1], q: Number(policy[2]), w: Number(policy[3]), limitName: limit[1], r: Number(limit[2]), t: Number(limit[3]) };
}

/** RateLimit-Policy and RateLimit say what X-RateLimit-* say, for the named policy. */
function expectConsistent(res: HttpResponse, name: string, window: number) {
  const f = ietf(res);
  expect([f.name, f.limitName, f.w]).toEqual([name, name, window]);
  expect(f.q).toBe(Number(res.headers['x-ratelimit-limit']));
  expect(f.r).toBe(Number(res.headers['x-ratelimit-remaining']));
  // `t` is the seconds until X-RateLimit-Reset (each rounded up to whole seconds, so one apart at most),
  // counted from when the answer was made (its Date header): a check made after a run of requests on a
  // busy machine would count from seconds later.
  const answeredAt = Date.parse(String(res.headers.date)) / 1000;
  expect(Math.abs(Number(res.headers['x-ratelimit-reset']) - (answeredAt + f.t))).toBeLessThanOrEqual(2);
  expect(f.t).toBeGreaterThanOrEqual(res.status === 429 ? 1 : 0);
  expect(f.t).toBeLessThanOrEqual(window);
  if (res.status === 429) {
    expect(f.r).toBe(0);
    expect(String(f.t)).toBe(res.headers['retry-after']);
  }
  return f;
}

describe('RateLimit-Policy and RateLimit beside X-RateLimit-*', () => {
  it('per API key: the same figures on each success and on the 429', async () => {
    const biz = await stack.business({ rateLimitTier: 'enterprise', rateLimitPerMinute: 3, rateLimitBurst: 5 });
    const answers: HttpResponse[] = [];
    for (let i = 0; i < 6; i++) answers.push(await stack.http.get('/api/checkout/sessions?limit=1', { key: biz.testKey }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.map((a) => expectConsistent(a, 'apikey', 60).r)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(ietf(answers[0]).q).toBe(5);
    expect(answers[0].headers['ratelimit-policy']).toBe('"apikey";q=5;w=60');
  });

  it('on error answers and Idempotency-Key replays too, which count', async () => {
    const biz = await stack.business();
    const missing = await stack.http.get('/api/refunds/ref_00000000000000000000000000000000', { key: biz.testKey });
    expect(missing.status).toBe(404);
    expect(expectConsistent(missing, 'apikey', 60)).toMatchObject({ q: 120, r: 119 });
    const headers = { 'Idempotency-Key': 'conventions-1' };
    const body = { description: 'Order', customer: { email: 'b@example.com' }, items: [{ name: 'W', price: 1, quantity: 1 }] };
    await stack.http.post('/api/checkout/sessions', body, { key: biz.testKey, headers });
    const replay = await stack.http.post('/api/checkout/sessions', body, { key: biz.testKey, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(expectConsistent(replay, 'apikey', 60).r).toBe(117);
  });

  it('the balance: its own policy, 30 a minute, replacing the key’s, through the 429', async () => {
    const biz = await stack.business();
    for (let i = 0; i < 30; i++) {
      const res = await stack.http.get('/api/balance', { key: biz.testKey });
      expect(res.status).toBe(200);
      expect(expectConsistent(res, 'balance', 60)).toMatchObject({ q: 30, r: 29 - i });
    }
    const over = await stack.http.get('/api/balance', { key: biz.testKey });
    expect(over.status).toBe(429);
    expectConsistent(over, 'balance', 60);
    expect(over.headers['ratelimit-policy']).toBe('"balance";q=30;w=60');
  });

  it('the pay call: its own policy, 10 a minute per session, through the 429', async () => {
    const biz = await stack.business();
    const session = await createSession(stack, biz.testKey);
    const answers: HttpResponse[] = [];
    // An empty body is refused (400) after the limit counted it, with the headers on it.
    for (let i = 0; i < 11; i++) answers.push(await pay(stack, session.id, {}));
    expect(answers.map((a) => a.status)).toEqual([...Array(10).fill(400), 429]);
    expect(answers.map((a) => expectConsistent(a, 'pay', 60).r)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(ietf(answers[0]).q).toBe(10);
  });

  it('no rate-limit fields at all on a 401, as with X-RateLimit-*', async () => {
    const res = await stack.http.get('/api/balance', { key: 'sk_test_nope' });
    expect(res.status).toBe(401);
    expect([res.headers['ratelimit'], res.headers['ratelimit-policy'], res.headers['x-ratelimit-limit']]).toEqual([undefined, undefined, undefined]);
  });
});

describe('conditional reads: ETag and If-None-Match', () => {
  let biz: TestBusiness;
  const reads: Record<string, string> = {};
  beforeAll(async () => {
    biz = await stack.business({ rateLimitTier: 'growth' });
    const session = await paidSession(stack, biz);
    // The fee leaves the payment's own net short of its total: the refund needs more available money.
    await creditAvailable(stack.orm, testMode(biz.id), 10_000);
    const refund = await stack.http.post('/api/refunds', { checkoutSessionId: session.id }, { key: biz.testKey });
    expect({ status: refund.status, body: refund.body }).toMatchObject({ status: 201 });
    // Let the refund settle first: the reads below must see resources that no longer change on their own
    // (the withdrawal waits 10 minutes before processing, so it stays pending).
    await eventually('the refund settles', async () => {
      const read = await stack.http.get(`/api/refunds/${refund.body.data.id}`, { key: biz.testKey });
      return read.body.data.status === 'completed' || read.body.data.status === 'failed';
    }, 60_000);
    const reserves = await stack.http.get('/api/reserves', { key: biz.testKey });
    await addWalletMethod(stack.orm, biz.id);
    await creditAvailable(stack.orm, testMode(biz.id), 10_000);
    const withdrawal = await stack.http.post(
      '/api/withdrawals',
      { amount: 10, destinationType: 'wallet', destinationDetails: { walletEmail: WALLET_EMAIL } },
      { key: biz.testKey },
    );
    expect(withdrawal.status).toBe(201);
    const transactions = await stack.http.get('/api/balance/transactions?limit=1', { key: biz.testKey });
    const endpoint = await stack.http.post('/api/webhooks', { url: 'https://merchant.example/hooks', events: ['*'] }, { key: biz.testKey });
    Object.assign(reads, {
      session: `/api/checkout/sessions/${session.id}`,
      refund: `/api/refunds/${refund.body.data.id}`,
      reserve: `/api/reserves/${reserves.body.data.items[0].id}`,
      withdrawal: `/api/v1/withdrawals/${withdrawal.body.data.id}`,
      webhook: `/api/webhooks/${endpoint.body.data.endpoint.id}`,
      balance: '/api/balance',
      balanceTransaction: `/api/balance/transactions/${transactions.body.data.items[0].id}`,
      reserveConfig: '/api/reserves/config',
      reserveSummary: '/api/reserves/summary',
    });
  });
  const get = (path: string, ifNoneMatch?: string) =>
    stack.http.get(path, { key: biz.testKey, headers: ifNoneMatch === undefined ? {} : { 'If-None-Match': ifNoneMatch } });

  it.each(['session', 'refund', 'reserve', 'withdrawal', 'webhook', 'balance', 'balanceTransaction', 'reserveConfig', 'reserveSummary'])(
    '%s: a strong ETag, stable while unchanged; 304 with no body on a match, weak form and `*` included; 200 otherwise',
    async (name) => {
      const path = reads[name];
      const first = await get(path);
      expect(first.status).toBe(200);
      const tag = first.headers.etag as string;
      expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect((await get(path)).headers.etag).toBe(tag);

      for (const condition of [tag, `W/${tag}`, `"nope", ${tag}`, '*']) {
        const same = await get(path, condition);
        expect(same.status).toBe(304);
        expect(same.text).toBe('');
        expect(same.headers.etag).toBe(tag);
        expect(same.headers['x-ratelimit-remaining']).toBeDefined();
        expect(ietf(same).r).toBe(Number(same.headers['x-ratelimit-remaining']));
      }
      const other = await get(path, '"not-the-tag"');
      expect(other.status).toBe(200);
      expect(other.text).toBe(first.text);
      expect(other.headers.etag).toBe(tag);
    },
  );

  it('a new ETag once the resource changes, and the old one then gets the full answer', async () => {
    const endpoint = reads.webhook;
    const before = await get(endpoint);
    const patched = await stack.http.patch(endpoint, { description: 'Orders' }, { key: biz.testKey });
    expect(patched.status).toBe(200);
    expect(patched.headers.etag).toBeUndefined(); // a write answer is not a conditional read
    const after = await get(endpoint, before.headers.etag as string);
    expect(after.status).toBe(200);
    expect(after.body.data.description).toBe('Orders');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await get(endpoint, after.headers.etag as string)).status).toBe(304);

    const balance = await get('/api/balance');
    await creditAvailable(stack.orm, testMode(biz.id), 1);
    const moved = await get('/api/balance', balance.headers.etag as string);
    expect(moved.status).toBe(200);
    expect(moved.body.data.availableInCents).toBe(balance.body.data.availableInCents + 1);
    expect(moved.headers.etag).not.toBe(balance.headers.etag);
  });

  it('evaluates If-None-Match even when the request says Cache-Control: no-cache (an origin server, not a cache)', async () => {
    const first = await get(reads.session);
    const again = await stack.http.get(reads.session, { key: biz.testKey, headers: { 'If-None-Match': first.headers.etag as string, 'Cache-Control': 'no-cache' } });
    expect(again.status).toBe(304);
  });

  it('no ETag on lists or errors, and `*` on a resource that does not exist is its 404', async () => {
    const list = await get('/api/checkout/sessions?limit=1');
    expect(list.status).toBe(200);
    expect(list.headers.etag).toBeUndefined();
    expect((await get('/api/checkout/sessions?limit=1', '*')).status).toBe(200);
    const missing = await get('/api/refunds/ref_00000000000000000000000000000000', '*');
    expect(missing.status).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    expect(missing.body.error.type).toBe('not_found');
  });

  it('a tag from another business’s balance does not match this one’s', async () => {
    const other = await stack.business();
    const mine = await get('/api/balance');
    const theirs = await stack.http.get('/api/balance', { key: other.testKey, headers: { 'If-None-Match': mine.headers.etag as string } });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.availableInCents).toBe(0);
  });
});
