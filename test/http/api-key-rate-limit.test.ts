import { readFileSync } from 'node:fs';
import { createLogger } from '../../src/log.js';
import { startApi } from '../../src/main/runtime.js';
import { createHttpClient, type HttpResponse } from '../support/http.js';
import { useStack } from '../support/use-stack.js';
import { expectRateLimited } from '../support/rate-limited.js';

const stack = useStack({}, { worker: false });

const list = (key: string, client = stack.http) => client.get('/api/checkout/sessions?limit=1', { key });
const now = () => Math.floor(Date.now() / 1000);

function expect429(res: HttpResponse) {
  const seconds = expectRateLimited(res);
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  const reset = Number(res.headers['x-ratelimit-reset']);
  expect(reset).toBeGreaterThanOrEqual(now() + seconds - 2);
  expect(reset).toBeLessThanOrEqual(now() + seconds + 1);
}

describe('rate limit per API key (table A)', () => {
  it('standard tier: 120 requests in a burst pass, counting down; the 121st gets 429 with the spec body and headers', async () => {
    const biz = await stack.business({ rateLimitTier: 'standard' });
    const started = now();
    const remaining: number[] = [];
    for (let i = 0; i < 120; i++) {
      const res = await list(biz.testKey);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('120');
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
      if (i === 0) {
        expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(started + 59);
        expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(now() + 61);
      }
    }
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
    const over = await list(biz.testKey);
    expect429(over);
    expect(over.headers['x-ratelimit-limit']).toBe('120');
  });

  it('counts each key apart: the same business’s other key still has its budget', async () => {
    const biz = await stack.business();
    await Promise.all(Array.from({ length: 121 }, () => list(biz.testKey)));
    expect((await list(biz.testKey)).status).toBe(429);
    expect((await list(biz.liveKey)).status).toBe(200);
  });

  it('growth tier: 300 per minute, burst 600', async () => {
    const biz = await stack.business({ rateLimitTier: 'growth' });
    const res = await list(biz.testKey);
    expect(res.headers['x-ratelimit-limit']).toBe('600');
    expect(res.headers['x-ratelimit-remaining']).toBe('599');
  });

  it('enterprise tier: the business’s own figures', async () => {
    const biz = await stack.business({ rateLimitTier: 'enterprise', rateLimitPerMinute: 3, rateLimitBurst: 5 });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await list(biz.testKey)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('counts error answers and Idempotency-Key replays too, with the headers on them', async () => {
    const biz = await stack.business();
    const res = await stack.http.get('/api/checkout/sessions/not-a-session', { key: biz.testKey });
    expect(res.status).toBe(404);
    expect(res.headers['x-ratelimit-remaining']).toBe('119');
    const body = { description: 'Order', customer: { email: 'b@example.com' }, items: [{ name: 'W', price: 1, quantity: 1 }] };
    const post = () => stack.http.post('/api/checkout/sessions', body, { key: biz.testKey, headers: { 'Idempotency-Key': 'rl-1' } });
    expect((await post()).headers['x-ratelimit-remaining']).toBe('118');
    const replay = await post();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['x-ratelimit-remaining']).toBe('117');
  });

  it('two API processes share one budget', async () => {
    const tls = { cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) };
    const second = await startApi({ config: stack.config, orm: stack.orm, temporal: stack.temporal, log: createLogger('silent'), tls });
    const other = createHttpClient(second.origin, readFileSync(process.env.TEST_TLS_CA!));
    try {
      const biz = await stack.business();
      const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => list(biz.testKey, i % 2 ? other : stack.http)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect429(await list(biz.testKey, other));
      expect429(await list(biz.testKey, stack.http));
    } finally {
      other.close();
      await second.close();
    }
  });
});

describe('GET /api/balance: 30 per minute per key', () => {
  it('answers 429 on the 31st call with the operation’s own limit in the headers', async () => {
    const biz = await stack.business();
    for (let i = 0; i < 30; i++) {
      const res = await stack.http.get('/api/balance', { key: biz.testKey });
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('30');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(29 - i));
    }
    const over = await stack.http.get('/api/v1/balance', { key: biz.testKey });
    expect429(over);
    expect(over.headers['x-ratelimit-limit']).toBe('30');
    // Other operations still have the key's own budget.
    expect((await list(biz.testKey)).status).toBe(200);
  });
});
