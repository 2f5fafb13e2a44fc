import { createSession } from '../support/payments.js';
import type { TestStack } from '../support/stack.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { expectRateLimited } from '../support/rate-limited.js';

/**
 * Three API instances on one database, so one set of counters, as for several API processes:
 * `direct` believes no proxy near it (TRUSTED_PROXIES names another host), `proxied` has its proxy on
 * 127.0.0.1, where every test request comes from, and `unlimited` turns the public limit off.
 */
const direct = useStack({ PUBLIC_RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY: 'true', TRUSTED_PROXIES: '10.9.9.9, 192.0.2.0/24' }, { worker: false });
const proxied = useStack({ PUBLIC_RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY: 'true', TRUSTED_PROXIES: '127.0.0.1' }, { worker: false });
const unlimited = useStack({ PUBLIC_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
const biz = useBusiness(direct);
// Each test starts with every address's budget whole.
beforeEach(() => direct.orm.em.getConnection().execute('delete from rate_limit_counters'));

const requestId = expect.stringMatching(/^req_[0-9a-f]{32}$/);
const page = (stack: TestStack, id: string, headers: Record<string, string> = {}) => stack.http.get(`/checkout/${id}`, { headers });
const pay = (stack: TestStack, id: string, headers: Record<string, string> = {}, prefix = '/api') =>
  stack.http.post(`${prefix}/checkout/${id}/pay`, {}, { headers });
const cancel = (stack: TestStack, id: string) => stack.http.request('POST', `/checkout/${id}/cancel`, {});

/** The IETF RateLimit fields on a 429 say what X-RateLimit-* and Retry-After say (the public or the pay policy). */
function expectIetfFields(res: { headers: Record<string, unknown> }) {
  const policy = String(res.headers['ratelimit-policy']).match(/^"(public|pay)";q=(\d+);w=60$/);
  expect(policy?.[2]).toBe(res.headers['x-ratelimit-limit']);
  expect(res.headers.ratelimit).toBe(`"${policy?.[1]}";r=0;t=${res.headers['retry-after']}`);
}

function expectLimited(res: { status: number; body: any; headers: Record<string, unknown> }) {
  expectRateLimited(res);
  expectIetfFields(res);
}

function expectLimitedPage(res: { status: number; text: string; headers: Record<string, unknown> }) {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expectIetfFields(res);
  expect(res.headers['ratelimit-policy']).toBe('"public";q=5;w=60');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.text).toContain('Too many requests');
}

describe('PUBLIC_RATE_LIMIT_PER_MINUTE: one budget per client address over the page, pay and cancel', () => {
  it('counts the hosted page, pay (both prefixes) and cancel together; the 6th gets 429, as JSON or as a page', async () => {
    const session = await createSession(direct, biz.testKey);
    expect((await page(direct, session.id)).status).toBe(200);
    expect((await page(direct, session.id)).status).toBe(200);
    expect((await pay(direct, session.id)).status).toBe(400);
    expect((await pay(direct, session.id, {}, '/api/v1')).status).toBe(400);
    expect((await cancel(direct, session.id)).status).toBe(303);
    expectLimited(await pay(direct, session.id));
    expectLimitedPage(await page(direct, session.id));
    expectLimitedPage(await cancel(direct, session.id));
    // A page for an unknown id counts too: the limit also bounds guessing.
    expectLimitedPage(await page(direct, '00000000-0000-7000-8000-000000000000'));
    // The page's static assets and the API-key routes are not part of it.
    expect((await direct.http.get('/checkout/assets/checkout.css')).status).toBe(200);
    expect((await direct.http.get('/api/checkout/sessions', { key: biz.testKey })).status).toBe(200);
  });

  it('is shared by every API instance on the database', async () => {
    const session = await createSession(direct, biz.testKey);
    for (let i = 0; i < 3; i++) expect((await page(direct, session.id)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await page(proxied, session.id)).status).toBe(200);
    expectLimited(await pay(proxied, session.id));
    expectLimited(await pay(direct, session.id));
  });

  it('is off at 0', async () => {
    const session = await createSession(unlimited, biz.testKey);
    for (let i = 0; i < 30; i++) expect((await page(unlimited, session.id)).status).toBe(200);
  });
});

describe('TRUSTED_PROXIES: X-Forwarded-* is believed from configured proxies only', () => {
  it('ignores X-Forwarded-For from a peer that is not a configured proxy: a new address per request gains nothing', async () => {
    const session = await createSession(direct, biz.testKey);
    for (let i = 1; i <= 5; i++) expect((await page(direct, session.id, { 'X-Forwarded-For': `203.0.113.${i}` })).status).toBe(200);
    expectLimited(await pay(direct, session.id, { 'X-Forwarded-For': '203.0.113.99' }));
  });

  it("ignores X-Forwarded-Proto from such a peer: 'http' does not make a TLS request refused", async () => {
    const res = await direct.http.get('/api/checkout/sessions', { key: biz.testKey, headers: { 'X-Forwarded-Proto': 'http' } });
    expect(res.status).toBe(200);
  });

  it("takes a configured proxy's X-Forwarded-For: each client address has its own budget", async () => {
    const session = await createSession(proxied, biz.testKey);
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    for (let i = 0; i < 5; i++) expect((await page(proxied, session.id, from('203.0.113.7'))).status).toBe(200);
    expectLimited(await pay(proxied, session.id, from('203.0.113.7')));
    // What the client wrote itself sits left of what the proxy appended, and is not believed.
    expectLimited(await pay(proxied, session.id, from('198.51.100.1, 203.0.113.7')));
    expect((await page(proxied, session.id, from('203.0.113.8'))).status).toBe(200);
    // The proxy's own address, 127.0.0.1, has spent nothing.
    expect((await page(proxied, session.id)).status).toBe(200);
  });

  it("takes a configured proxy's X-Forwarded-Proto", async () => {
    const res = await proxied.http.get('/api/checkout/sessions', { key: biz.testKey, headers: { 'X-Forwarded-Proto': 'http' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: { type: 'permission_error', message: 'HTTPS is required', requestId } });
  });
});

describe('POST /api/checkout/:id/pay: 10 a minute per session, however its id is spelled', () => {
  it('counts every spelling PostgreSQL reads as the same UUID against one budget', async () => {
    const session = await createSession(unlimited, biz.testKey);
    const id: string = session.id;
    const spellings = [id, id.toUpperCase(), id.replace(/[a-f]/, (c) => c.toUpperCase()), id.replaceAll('-', ''), `{${id}}`, id.toUpperCase().replaceAll('-', '')];
    for (let i = 0; i < 10; i++) {
      const spelling = spellings[i % spellings.length];
      const res = await pay(unlimited, encodeURIComponent(spelling));
      // The pay call finds the session in either case (and refuses the empty body); the other spellings
      // find nothing, but still spend the session's tries rather than open a budget of their own.
      expect(res.status).toBe(/^[0-9a-f-]{36}$/i.test(spelling) ? 400 : 404);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(9 - i));
    }
    expectLimited(await pay(unlimited, id.toUpperCase()));
    expectLimited(await pay(unlimited, id));
    // Another session keeps its own ten.
    const other = await createSession(unlimited, biz.testKey);
    expect((await pay(unlimited, other.id.toUpperCase())).status).toBe(400);
  });
});
