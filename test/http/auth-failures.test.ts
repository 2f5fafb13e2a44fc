import { randomBytes } from 'node:crypto';
import { API_KEY_LISTENER_NAME } from '../../src/modules/businesses/api-key.cache.js';
import { hashApiKey } from '../../src/modules/businesses/index.js';
import { expectRateLimited } from '../support/rate-limited.js';
import { useBusiness, useStack } from '../support/use-stack.js';

/**
 * Failed authentication is bounded (docs/decisions.md, Security at the edges): an unknown key is remembered
 * briefly, and one client address gets AUTH_FAILURES_PER_MINUTE 401s a minute, then 429s without its keys
 * being looked up. Each test sends from a loopback address of its own: the counters are the process's.
 */
const stack = useStack({ AUTH_FAILURES_PER_MINUTE: '5' }, { worker: false });
const biz = useBusiness(stack);

const madeUp = () => `mp_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'A').slice(0, 32)}`;
const list = (from: string, key?: string, headers: Record<string, string> = {}) =>
  stack.http.get('/api/checkout/sessions', { key, headers, localAddress: from });

async function untilListening() {
  for (let tries = 0; ; tries++) {
    const [row] = await stack.orm.em.fork().getConnection().execute<{ n: number }[]>(
      'select count(*)::int as n from pg_stat_activity where application_name = ? and datname = current_database()',
      [API_KEY_LISTENER_NAME],
    );
    if (row.n > 0) return;
    if (tries > 100) throw new Error('the API key cache never listened');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('AUTH_FAILURES_PER_MINUTE: 401s per client address', () => {
  it('answers the 6th failure in a minute with the spec’s 429, and other addresses are not affected', async () => {
    const from = '127.0.0.31';
    for (let i = 0; i < 5; i++) {
      const res = await list(from, madeUp());
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('authentication_error');
    }
    const refused = await list(from, madeUp());
    expectRateLimited(refused);
    expect(refused.headers['ratelimit-policy']).toBe('"auth";q=5;w=60');
    expect(refused.headers['x-ratelimit-limit']).toBe('5');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // Every way of failing counts and is refused alike: no key, another scheme, a malformed key.
    expectRateLimited(await list(from));
    expectRateLimited(await list(from, undefined, { Authorization: 'Basic dXNlcjpwYXNz' }));
    expectRateLimited(await list(from, 'nope'));
    // Another client is its own budget.
    expect((await list('127.0.0.32', madeUp())).status).toBe(401);
  });

  it('over the limit, a key the process holds still works; one it would have to look up is refused before the lookup', async () => {
    const from = '127.0.0.33';
    await untilListening();
    // Read once, so this process holds it.
    expect((await list(from, biz.testKey)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await list(from, madeUp())).status).toBe(401);
    expect((await list(from, biz.testKey)).status).toBe(200);
    // A real key this process has not read: the address gets no database lookup until the minute is over.
    const other = await stack.business();
    expectRateLimited(await list(from, other.testKey));
    expect((await list('127.0.0.34', other.testKey)).status).toBe(200);
  });
});

describe('an unknown key remembered briefly', () => {
  it('a key created for a secret that was just refused works at once: its creation empties the cache', async () => {
    await untilListening();
    const secret = madeUp();
    // Refused twice: the second from memory.
    for (let i = 0; i < 2; i++) expect((await list('127.0.0.35', secret)).status).toBe(401);
    await stack.orm.em.getConnection().execute(
      `insert into api_keys (id, business_id, mode, scope, prefix, secret_hash, created_at) values (?, ?, 'test', 'full', ?, ?, now())`,
      [`key_${randomBytes(16).toString('hex')}`, biz.id, secret.slice(0, 12), hashApiKey(secret)],
    );
    // The notification travels after the commit: a few milliseconds, waited for generously.
    const until = Date.now() + 5_000;
    let status = 0;
    while ((status = (await list('127.0.0.35', secret)).status) !== 200 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(status).toBe(200);
  });
});
