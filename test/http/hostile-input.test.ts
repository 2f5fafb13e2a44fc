import { encodeCursor } from '../../src/domain/cursor.js';
import { createSession, payBody, sessionBody } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const sql = (query: string, params: unknown[] = []) => stack.orm.em.getConnection().execute(query, params);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const hex32 = 'a'.repeat(32);
const requestId = expect.stringMatching(/^req_[0-9a-f]{32}$/);

describe('list cursors the service did not write for that list: 400 validation_error, never 500', () => {
  const invalidCursor = {
    success: false,
    error: { type: 'validation_error', message: 'Validation failed', requestId, errors: [{ path: ['cursor'], message: 'Invalid cursor' }] },
  };
  const tampered: [string, string][] = [
    ['base64 garbage', '%%%not*base64%%%'],
    ['base64 of text that is not JSON', b64('hello world')],
    ['base64 of the wrong JSON', b64('{"createdAt":"2026-01-01T00:00:00.000Z","id":"x"}')],
    ['a pair whose id has a NUL', b64(JSON.stringify(['2026-01-01T00:00:00.000Z', `res_${hex32}\u0000`]))],
    ['a pair whose id is SQL', b64(JSON.stringify(['2026-01-01T00:00:00.000Z', "' or 1=1 --"]))],
    ['a date PostgreSQL cannot take', b64(JSON.stringify(['+275760-09-13T00:00:00.000Z', `res_${hex32}`]))],
    ['a date that is not a date', b64(JSON.stringify(['2026-13-45T99:00:00.000Z', `res_${hex32}`]))],
    ['year 0000, which PostgreSQL has not', b64(JSON.stringify(['0000-01-01T00:00:00.000Z', `res_${hex32}`]))],
    ['a cursor far too long', 'A'.repeat(5000)],
  ];

  let sessionCursor: string;
  beforeAll(async () => {
    await createSession(stack, biz.testKey);
    await createSession(stack, biz.testKey);
    const page = await stack.http.get('/api/checkout/sessions?limit=1', { key: biz.testKey });
    sessionCursor = page.body.data.nextCursor;
    expect(sessionCursor).toEqual(expect.any(String));
  });
  const reserveCursor = () => encodeCursor({ createdAt: new Date(), id: `res_${hex32}` });

  describe.each([
    ['GET /api/checkout/sessions', '/api/checkout/sessions', () => reserveCursor()],
    ['GET /api/reserves', '/api/reserves', () => sessionCursor],
  ])('%s', (_name, path, foreignCursor) => {
    it.each(tampered)('refuses %s', async (_what, cursor) => {
      const res = await stack.http.get(`${path}?cursor=${encodeURIComponent(cursor)}`, { key: biz.testKey });
      expect([res.status, res.body]).toEqual([400, invalidCursor]);
    });

    it("refuses another list's cursor", async () => {
      const res = await stack.http.get(`${path}?cursor=${encodeURIComponent(foreignCursor())}`, { key: biz.testKey });
      expect([res.status, res.body]).toEqual([400, invalidCursor]);
    });
  });

  it('still follows its own cursors', async () => {
    const sessions = await stack.http.get(`/api/checkout/sessions?limit=1&cursor=${sessionCursor}`, { key: biz.testKey });
    expect(sessions.status).toBe(200);
    expect(sessions.body.data.items).toHaveLength(1);
    const reserves = await stack.http.get(`/api/reserves?cursor=${reserveCursor()}`, { key: biz.testKey });
    expect(reserves.status).toBe(200);
  });
});

describe('a deeply nested JSON body: 400 validation_error before any work', () => {
  const tooDeep = {
    success: false,
    error: { type: 'validation_error', message: 'Request body must not nest objects and arrays more than 32 levels deep', requestId },
  };
  const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const inMetadata = (depth: number) => JSON.stringify(sessionBody({ metadata: JSON.parse(`{"a":${'{"a":'.repeat(depth - 2)}1${'}'.repeat(depth - 2)}}`) }));
  const post = (path: string, rawBody: string, headers: Record<string, string> = {}) =>
    stack.http.request('POST', path, { key: biz.testKey, rawBody, headers: { 'Content-Type': 'application/json', ...headers } });
  const sessionCount = async () => (await sql('select count(*)::int as n from checkout_sessions where business_id = ?', [biz.id]))[0].n;
  const storedKeys = async (key: string) => (await sql('select count(*)::int as n from idempotency_keys where key = ?', [key]))[0].n;

  it.each([
    ['10,000 levels of [', arrays(10_000)],
    ['33 levels of objects in a session', inMetadata(33)],
    ['1 MB of [', '['.repeat(1024 * 1024 - 1)],
  ])('refuses %s, without and with an Idempotency-Key, and stores nothing', async (_what, body) => {
    const before = await sessionCount();
    const plain = await post('/api/checkout/sessions', body);
    expect([plain.status, plain.body]).toEqual([400, tooDeep]);
    const key = `deep-${Math.random()}`;
    const keyed = await post('/api/checkout/sessions', body, { 'Idempotency-Key': key });
    expect([keyed.status, keyed.body]).toEqual([400, tooDeep]);
    expect(await storedKeys(key)).toBe(0);
    expect(await sessionCount()).toBe(before);
    // The key was never taken: the same key with a good body creates the session.
    const good = await post('/api/checkout/sessions', JSON.stringify(sessionBody()), { 'Idempotency-Key': key });
    expect(good.status).toBe(201);
  });

  it('refuses it before authentication, and on the public pay call and a PUT as well', async () => {
    const anonymous = await stack.http.request('POST', '/api/checkout/sessions', {
      rawBody: arrays(10_000),
      headers: { 'Content-Type': 'application/json' },
    });
    expect([anonymous.status, anonymous.body]).toEqual([400, tooDeep]);
    const session = await createSession(stack, biz.testKey);
    const pay = await post(`/api/checkout/${session.id}/pay`, JSON.stringify({ ...payBody(), extra: JSON.parse(arrays(40)) }));
    expect([pay.status, pay.body]).toEqual([400, tooDeep]);
    expect((await sql('select status from checkout_sessions where id = ?', [session.id]))[0].status).toBe('pending');
    const put = await stack.http.request('PUT', '/api/webhooks/wh_x', { key: biz.testKey, rawBody: arrays(100), headers: { 'Content-Type': 'application/json' } });
    expect([put.status, put.body]).toEqual([400, tooDeep]);
  });

  it('takes 32 levels, and brackets inside strings do not count', async () => {
    const deepest = await post('/api/checkout/sessions', inMetadata(32));
    expect(deepest.body.error?.message).not.toBe(tooDeep.error.message);
    const brackets = await post('/api/checkout/sessions', JSON.stringify(sessionBody({ description: `${'[{'.repeat(100)}\\"` })));
    expect(brackets.status).toBe(201);
  });
});

describe('dates in a query that PostgreSQL cannot store: 400 validation_error, never 500', () => {
  const outOfRange = { path: expect.any(Array), message: 'Must be between 0001-01-01 and 9999-12-31 (UTC)' };
  it.each([
    ['/api/checkout/sessions?from=0000-01-01', 'from'],
    ['/api/checkout/sessions?to=9999-12-31T23:00:00-02:00', 'to'],
    ['/api/webhooks/events?from=0001-01-01T00:00:00%2B01:00', 'from'],
    ['/api/balance/transactions?createdFrom=0000-01-01', 'createdFrom'],
    ['/api/balance/transactions?createdTo=9999-12-31T23:00:00-02:00', 'createdTo'],
  ])('%s', async (path, field) => {
    const res = await stack.http.get(path, { key: biz.testKey });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ type: 'validation_error', message: 'Validation failed', requestId, errors: [{ ...outOfRange, path: [field] }] });
  });

  it('still takes the years at the edges of the range', async () => {
    const res = await stack.http.get('/api/balance/transactions?createdFrom=0001-01-01&createdTo=9999-12-31T23:59:59Z', { key: biz.testKey });
    expect(res.status).toBe(200);
  });
});
