import { useBusiness, useStack } from '../support/use-stack.js';

const ids: string[] = []; // oldest first
const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);
beforeAll(async () => {
  for (let i = 0; i < 7; i++) {
    const res = await stack.http.post(
      '/api/checkout/sessions',
      {
        description: i % 2 ? `Blue hat ${i}` : `Red scarf ${i}`,
        customer: { email: i === 3 ? 'special@example.com' : `buyer${i}@example.com` },
        items: [{ name: 'x', price: 1 + i, quantity: 1 }],
        metadata: { n: i },
      },
      { key: biz.testKey },
    );
    ids.push(res.body.data.id);
  }
  await stack.orm.em.getConnection().execute(`update checkout_sessions set status = 'cancelled' where id = ?`, [ids[0]]);
});

const list = (query: string) => stack.http.get(`/api/checkout/sessions${query}`, { key: biz.testKey });

describe('GET /api/checkout/sessions', () => {
  it('lists newest first in the list form with data.items, data.meta and data.nextCursor', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((s: any) => s.id)).toEqual([...ids].reverse());
    expect(Object.keys(res.body.data.items[0]).sort()).toEqual(
      ['amountInCents', 'checkoutUrl', 'createdAt', 'currency', 'customerEmail', 'id', 'metadata', 'status', 'total'].sort(),
    );
    expect(res.body.data.items[0].amountInCents).toBe(res.body.data.items[0].total);
    expect(res.body.data.meta).toEqual({ total: 7, page: 1, limit: 20, totalPages: 1, hasNextPage: false, hasPreviousPage: false });
    expect(res.body.data.nextCursor).toBeNull();
  });

  it('pages by page and limit', async () => {
    const res = await list('?limit=3&page=2');
    expect(res.body.data.items.map((s: any) => s.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(res.body.data.meta).toEqual({ total: 7, page: 2, limit: 3, totalPages: 3, hasNextPage: true, hasPreviousPage: true });
  });

  it('walks every session once by cursor, stable while new sessions are created', async () => {
    const first = await list('?limit=3');
    expect(first.body.data.nextCursor).toEqual(expect.any(String));
    // A session created mid-walk lands before the cursor and does not shift the pages after it.
    await stack.http.post('/api/checkout/sessions', { description: 'late', customer: { email: 'l@x.co' }, items: [{ name: 'x', price: 1, quantity: 1 }] }, { key: biz.testKey });
    const second = await list(`?limit=3&page=9&cursor=${first.body.data.nextCursor}`);
    const third = await list(`?limit=3&cursor=${second.body.data.nextCursor}`);
    const walked = [first, second, third].flatMap((r) => r.body.data.items.map((s: any) => s.id));
    expect(walked).toEqual([...ids].reverse());
    expect(second.body.data.meta.page).toBe(2);
    expect(third.body.data.nextCursor).toBeNull();
    expect(third.body.data.meta.hasNextPage).toBe(false);
    await stack.orm.em.getConnection().execute(`delete from outbox where message->'args'->0->>'sessionId' in (select id::text from checkout_sessions where description = 'late')`);
    await stack.orm.em.getConnection().execute(`delete from session_items where session_id in (select id from checkout_sessions where description = 'late')`);
    await stack.orm.em.getConnection().execute(`delete from checkout_sessions where description = 'late'`);
  });

  it('filters by status, with all meaning every status', async () => {
    expect((await list('?status=cancelled')).body.data.items.map((s: any) => s.id)).toEqual([ids[0]]);
    expect((await list('?status=pending')).body.data.meta.total).toBe(6);
    expect((await list('?status=all')).body.data.meta.total).toBe(7);
    expect((await list('?status=refunded')).body.data.items).toEqual([]);
  });

  it('searches customer e-mail and description', async () => {
    expect((await list('?search=special@')).body.data.items.map((s: any) => s.id)).toEqual([ids[3]]);
    expect((await list('?search=blue%20hat')).body.data.meta.total).toBe(3);
    expect((await list('?search=100%25')).body.data.items).toEqual([]);
  });

  it("finds a whole e-mail address's own sessions, in any case; a part of one finds every address containing it", async () => {
    const other = await stack.business();
    const made: Record<string, string> = {};
    for (const email of ['ada@example.com', 'nada@example.com']) {
      const res = await stack.http.post('/api/checkout/sessions', { description: 'Order', customer: { email }, items: [{ name: 'x', price: 1, quantity: 1 }] }, { key: other.testKey });
      made[email] = res.body.data.id;
    }
    const search = async (term: string) =>
      (await stack.http.get(`/api/checkout/sessions?search=${encodeURIComponent(term)}`, { key: other.testKey })).body.data.items.map((s: any) => s.id).sort();
    expect(await search('Ada@Example.com')).toEqual([made['ada@example.com']]);
    expect(await search('ada@')).toEqual([made['ada@example.com'], made['nada@example.com']].sort());
  });

  it('filters by creation time with from/to and with startDate/endDate', async () => {
    const all = (await list('')).body.data.items;
    const middle = all[3].createdAt; // ids[3]
    const after = await list(`?from=${encodeURIComponent(middle)}`);
    expect(after.body.data.items.map((s: any) => s.id)).toEqual([ids[6], ids[5], ids[4], ids[3]]);
    const before = await list(`?endDate=${encodeURIComponent(middle)}`);
    expect(before.body.data.items.map((s: any) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
    const same = await list(`?startDate=${encodeURIComponent(middle)}`);
    expect(same.body.data.meta.total).toBe(4);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['page=0', 'page'],
    ['status=paid', 'status'],
    ['from=yesterday', 'from'],
    ['cursor=%%%', 'cursor'],
  ])('rejects %s with a validation error at that parameter', async (query, param) => {
    const res = await list(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('validation_error');
    expect(res.body.error.errors[0].path).toEqual([param]);
  });

  it.each([
    ['limit=ten', 'limit', 'Limit must be an integer, such as 20'],
    ['limit=2.5', 'limit', 'Limit must be an integer, such as 20'],
    ['page=two', 'page', 'Page must be an integer, such as 1'],
  ])('says %s is not an integer, in its entry and the top-level message', async (query, param, message) => {
    const res = await list(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message, errors: [{ path: [param], message }] });
  });
});
