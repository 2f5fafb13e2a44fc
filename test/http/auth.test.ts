import pg from 'pg';
import { API_KEY_LISTENER_NAME } from '../../src/modules/businesses/api-key.cache.js';
import { createApiKey, revokeApiKey } from '../../src/modules/businesses/index.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);
const other = useBusiness(stack);

const session = { description: 'Order', customer: { email: 'a@b.co' }, items: [{ name: 'x', price: 1, quantity: 1 }] };

function expectError(res: { status: number; body: any }, status: number, type: string, message?: string) {
  expect(res.status).toBe(status);
  expect(res.body.success).toBe(false);
  expect(res.body.error.type).toBe(type);
  if (message) expect(res.body.error.message).toBe(message);
}

/** The API's key cache serves entries only once its connection LISTENs (src/modules/businesses/api-key.cache.ts). */
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

/** Revokes a key with the NOTIFY trigger off (replica mode), so the API's key cache never hears of it. */
async function revokeUnheard(keyId: string) {
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    await db.query('begin');
    await db.query('set local session_replication_role = replica');
    await db.query('update api_keys set revoked_at = now() where id = $1', [keyId]);
    await db.query('commit');
  } finally {
    await db.end();
  }
}

describe('authentication (spec: Authentication)', () => {
  it.each([
    ['a malformed key', 'Bearer nope'],
    ['an unknown key of the right shape', `Bearer mp_test_${'A'.repeat(32)}`],
    ['two tokens', `Bearer ${'mp_test_'.padEnd(40, 'A')} extra`],
  ])('%s gives 401 authentication_error "Invalid API key" (the spec’s words)', async (_, header) => {
    const res = await stack.http.get('/api/checkout/sessions', { headers: { Authorization: header } });
    expectError(res, 401, 'authentication_error', 'Invalid API key');
  });

  it.each([
    ['no Authorization header', undefined],
    ['an empty one', ''],
    ['the scheme with no key', 'Bearer'],
    ['the scheme and blanks', 'Bearer   '],
  ])('%s gives 401 authentication_error "No API key: send Authorization: Bearer <key>"', async (_, header) => {
    const res = await stack.http.get('/api/checkout/sessions', { headers: header === undefined ? {} : { Authorization: header } });
    expectError(res, 401, 'authentication_error', 'No API key: send Authorization: Bearer <key>');
  });

  it.each([
    ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['a key sent bare, with no scheme', () => biz.testKey],
    ['a real key under another scheme', () => `Token ${biz.testKey}`],
  ])('%s gives 401 authentication_error "Authorization must use the Bearer scheme"', async (_, header) => {
    const value = typeof header === 'function' ? header() : header;
    const res = await stack.http.get('/api/checkout/sessions', { headers: { Authorization: value } });
    expectError(res, 401, 'authentication_error', 'Authorization must use the Bearer scheme');
  });

  it('takes the scheme in any letter case', async () => {
    expect((await stack.http.get('/api/checkout/sessions', { headers: { Authorization: `bearer ${biz.testKey}` } })).status).toBe(200);
    expect((await stack.http.get('/api/checkout/sessions', { headers: { Authorization: `BEARER  ${biz.testKey}` } })).status).toBe(200);
  });

  it('a revoked key gives 401', async () => {
    const key = await createApiKey(stack.orm.em.fork(), biz.id, 'test', 'full');
    expect((await stack.http.get('/api/checkout/sessions', { key: key.secret })).status).toBe(200);
    await revokeApiKey(stack.orm.em.fork(), key.id);
    expectError(await stack.http.get('/api/checkout/sessions', { key: key.secret }), 401, 'authentication_error', 'Invalid API key');
  });

  it('a cached key revoked with no notification (triggers off) is still refused at the next request', async () => {
    const key = await createApiKey(stack.orm.em.fork(), biz.id, 'test', 'full');
    await untilListening();
    // Twice: the second is served from the API process's key cache.
    for (let i = 0; i < 2; i++) expect((await stack.http.get('/api/checkout/sessions', { key: key.secret })).status).toBe(200);
    // replica mode skips the NOTIFY trigger, so the cache never hears of this revocation.
    await revokeUnheard(key.id);
    const res = await stack.http.get('/api/checkout/sessions', { key: key.secret });
    expectError(res, 401, 'authentication_error', 'Invalid API key');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('a cached read_only key revoked unheard answers a write 401, not its 403: revocation comes first', async () => {
    const key = await createApiKey(stack.orm.em.fork(), biz.id, 'test', 'read_only');
    await untilListening();
    expectError(await stack.http.post('/api/checkout/sessions', session, { key: key.secret }), 403, 'permission_error');
    await revokeUnheard(key.id);
    expectError(await stack.http.post('/api/checkout/sessions', session, { key: key.secret }), 401, 'authentication_error', 'Invalid API key');
  });

  it('a read_only key may read but a write gives 403 permission_error', async () => {
    const key = await createApiKey(stack.orm.em.fork(), biz.id, 'test', 'read_only');
    expect((await stack.http.get('/api/checkout/sessions', { key: key.secret })).status).toBe(200);
    expectError(await stack.http.post('/api/checkout/sessions', session, { key: key.secret }), 403, 'permission_error');
  });

  it('a live key of a business that is not approved gives 403 permission_error; its test key works', async () => {
    const pending = await stack.business({ approved: false });
    expectError(await stack.http.get('/api/checkout/sessions', { key: pending.liveKey }), 403, 'permission_error');
    expect((await stack.http.get('/api/checkout/sessions', { key: pending.testKey })).status).toBe(200);
  });
});

describe('isolation between businesses and modes', () => {
  it('a session is found only with a key of its own business and mode; otherwise 404, never 403', async () => {
    const created = await stack.http.post('/api/checkout/sessions', session, { key: biz.testKey });
    const id = created.body.data.id;
    expect(created.body.data.livemode).toBe(false);
    expect((await stack.http.get(`/api/checkout/sessions/${id}`, { key: biz.testKey })).status).toBe(200);
    for (const key of [biz.liveKey, other.testKey, other.liveKey]) {
      expectError(await stack.http.get(`/api/checkout/sessions/${id}`, { key }), 404, 'not_found', 'Checkout session not found');
    }
  });

  it('lists show only the caller’s own business and mode', async () => {
    const live = await stack.http.post('/api/checkout/sessions', { ...session, description: 'live one' }, { key: biz.liveKey });
    expect(live.body.data.livemode).toBe(true);
    const testList = await stack.http.get('/api/checkout/sessions?limit=100', { key: biz.testKey });
    const liveList = await stack.http.get('/api/checkout/sessions?limit=100', { key: biz.liveKey });
    const otherList = await stack.http.get('/api/checkout/sessions?limit=100', { key: other.testKey });
    expect(testList.body.data.items.map((s: any) => s.id)).not.toContain(live.body.data.id);
    expect(liveList.body.data.items.map((s: any) => s.id)).toEqual([live.body.data.id]);
    expect(otherList.body.data.items).toEqual([]);
  });

  it('a malformed session id is simply not found', async () => {
    expectError(await stack.http.get('/api/checkout/sessions/sess_123', { key: biz.testKey }), 404, 'not_found', 'Checkout session not found');
  });
});
