/**
 * List totals that do not count rows: the counters kept by triggers (exact, in the writing transaction),
 * folded by the worker, checked by ledger verify; totals under filters no counter keeps, counted up to a
 * cap; page numbers carried by cursors and bounded in depth.
 */
import { encodeCursor } from '../../src/domain/cursor.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { foldRowCounts } from '../../src/modules/lists/row-count.folder.js';
import { rowCounts } from '../../src/modules/lists/index.js';
import { sql } from '../support/payments.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

// No worker: the counters' deltas stay unfolded until a test folds them itself.
const stack = useStack({}, { worker: false });

const list = (biz: TestBusiness, query = '') => stack.http.get(`/api/checkout/sessions${query}`, { key: biz.testKey });
const owner = (biz: TestBusiness) => ({ businessId: biz.id, livemode: false });
const counts = async (biz: TestBusiness, resource: Parameters<typeof rowCounts>[2]) => Object.fromEntries(await rowCounts(stack.orm.em.fork(), owner(biz), resource));

/** `n` pending sessions of `biz`, written in one statement, `email` as their customer's, a second apart. */
const insertSessions = (biz: TestBusiness, n: number, email = 'bulk@example.com') =>
  sql(
    stack,
    `insert into checkout_sessions (id, business_id, livemode, user_id, status, subtotal, fee, total, description, customer_email,
       ask_shipping, metadata, expires_at, created_at, updated_at)
     select gen_random_uuid(), ?, false, 'key_bulk', 'pending', 1000, 59, 1059, 'Bulk order ' || n, ?, false, '{}'::jsonb,
       now() + interval '1 day', now() - interval '1 day' + n * interval '1 second', now()
     from generate_series(1, ?) n`,
    [biz.id, email, n],
  );

describe('the counters', () => {
  it('count each insert, status change and delete in its own transaction, one delta a key per statement', async () => {
    const biz = await stack.business();
    const before = Number((await sql(stack, 'select count(*) from row_count_deltas'))[0].count);
    await insertSessions(biz, 500);
    // One statement of 500 rows: one delta row, not 500.
    expect(Number((await sql(stack, 'select count(*) from row_count_deltas'))[0].count) - before).toBe(1);
    expect(await counts(biz, 'checkout_session')).toEqual({ pending: 500 });

    await sql(stack, `update checkout_sessions set status = 'cancelled' where business_id = ? and description in ('Bulk order 1', 'Bulk order 2')`, [biz.id]);
    await sql(stack, `update checkout_sessions set updated_at = now() where business_id = ?`, [biz.id]); // no status changes: no delta
    expect(await counts(biz, 'checkout_session')).toEqual({ pending: 498, cancelled: 2 });
    await sql(stack, `delete from checkout_sessions where business_id = ? and status = 'cancelled'`, [biz.id]);
    expect(await counts(biz, 'checkout_session')).toEqual({ pending: 498, cancelled: 0 });
  });

  it('stay exact while the worker folds their deltas, and ledger verify holds them to the rows', async () => {
    const biz = await stack.business();
    await insertSessions(biz, 30);
    await sql(stack, `update checkout_sessions set status = 'processing' where business_id = ? and description like 'Bulk order 2_'`, [biz.id]);
    const unfolded = await counts(biz, 'checkout_session');
    while ((await foldRowCounts(stack.orm)) > 0) {
      /* fold everything */
    }
    expect(await counts(biz, 'checkout_session')).toEqual(unfolded);
    expect(Number((await sql(stack, 'select count(*) from row_count_deltas where business_id = ?', [biz.id]))[0].count)).toBe(0);

    const mine = (problems: string[]) => problems.filter((p) => p.includes(biz.id));
    expect(mine((await verifyLedger(stack.orm.em.fork())).problems)).toEqual([]);
    await sql(stack, `update row_counts set count = count + 1 where business_id = ? and resource = 'checkout_session' and key = 'pending'`, [biz.id]);
    expect(mine((await verifyLedger(stack.orm.em.fork())).problems)).toEqual([
      `business ${biz.id} (test): the list counters say ${unfolded.pending + 1} checkout_session rows of pending but there are ${unfolded.pending}`,
    ]);
    await sql(stack, `update row_counts set count = count - 1 where business_id = ? and resource = 'checkout_session' and key = 'pending'`, [biz.id]);
  });
});

describe('GET /api/checkout/sessions totals and pages', () => {
  it('answers exact totals by status from the counters', async () => {
    const biz = await stack.business();
    await insertSessions(biz, 25);
    await sql(stack, `update checkout_sessions set status = 'failed' where business_id = ? and description like 'Bulk order 1_'`, [biz.id]);
    expect((await list(biz, '?status=all&limit=10')).body.data.meta).toEqual({ total: 25, page: 1, limit: 10, totalPages: 3, hasNextPage: true, hasPreviousPage: false });
    expect((await list(biz, '?status=failed')).body.data.meta.total).toBe(10);
    expect((await list(biz, '?status=pending')).body.data.meta.total).toBe(15);
    expect((await list(biz, '?status=refunded')).body.data.meta).toMatchObject({ total: 0, totalPages: 0, hasNextPage: false });
  });

  it('caps a search total it would have to count past 10,000, and says so', async () => {
    const biz = await stack.business();
    await insertSessions(biz, 10_050, 'many@example.com');
    await insertSessions(biz, 5, 'few@example.com');
    const many = await list(biz, '?search=many%40example&limit=100');
    expect(many.body.data.meta).toEqual({ total: 10_000, page: 1, limit: 100, totalPages: 100, hasNextPage: true, hasPreviousPage: false, totalCapped: true });
    const few = await list(biz, '?search=few%40example');
    expect(few.body.data.meta).toEqual({ total: 5, page: 1, limit: 20, totalPages: 1, hasNextPage: false, hasPreviousPage: false });
    // Without a filter the counters answer exactly, however many.
    expect((await list(biz)).body.data.meta).toMatchObject({ total: 10_055 });
    expect((await list(biz)).body.data.meta.totalCapped).toBeUndefined();
  });

  it('numbers the pages a cursor walks without counting, and stops page numbers at 10,000 rows deep', async () => {
    const biz = await stack.business();
    await insertSessions(biz, 7);
    const seen: string[] = [];
    let query = '?limit=3';
    const pages: number[] = [];
    for (;;) {
      const res = await list(biz, query);
      pages.push(res.body.data.meta.page);
      seen.push(...res.body.data.items.map((s: any) => s.id));
      if (!res.body.data.nextCursor) break;
      query = `?limit=3&cursor=${res.body.data.nextCursor}`;
    }
    expect(pages).toEqual([1, 2, 3]);
    expect(new Set(seen).size).toBe(7);
    // A cursor written before cursors carried their page is still followed, its page counted.
    const [second] = await sql(stack, 'select id, created_at from checkout_sessions where business_id = ? order by created_at desc, id desc offset 2 limit 1', [biz.id]);
    const legacy = await list(biz, `?limit=3&cursor=${encodeCursor({ createdAt: new Date(second.created_at), id: second.id })}`);
    expect(legacy.body.data.meta).toMatchObject({ page: 2, hasPreviousPage: true });
    expect(legacy.body.data.items.map((s: any) => s.id)).toEqual(seen.slice(3, 6));

    // A list deeper than 10,000 rows: a page number that far in is refused, the cursor reaches it.
    const long = await stack.business();
    await insertSessions(long, 10_300);
    const deep = await list(long, '?limit=100&page=102');
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatchObject({
      type: 'validation_error',
      errors: [{ path: ['page'], message: 'Page numbers reach 10,000 rows deep; follow nextCursor beyond' }],
    });
    expect((await list(long, '?limit=100&page=101')).status).toBe(200);
    // Past the end of the list, however deep: an empty page, as any page past the end.
    const pastTheEnd = await stack.http.get('/api/withdrawals?page=9007199254740990&limit=20', { key: biz.testKey });
    expect(pastTheEnd.status).toBe(200);
    expect(pastTheEnd.body.data).toMatchObject({ items: [], meta: { total: 0, hasNextPage: false } });
    expect((await list(biz, '?limit=100&page=5000')).body.data).toMatchObject({ items: [], meta: { total: 7, hasNextPage: false } });
  });
});

describe('other lists read their totals from the counters', () => {
  it('withdrawals by status, refunds by status, the event log by type', async () => {
    const biz = await stack.business();
    await sql(
      stack,
      `insert into withdrawals (id, business_id, livemode, amount_in_cents, status, destination_type, destination_details, requested_at, updated_at, completed_at)
       select 'wd_' || md5(? || n), ?, false, 100, case when n <= 3 then 'completed' else 'pending' end, 'wallet',
         '{"walletEmail":"a@b.example"}', now() - n * interval '1 minute', now(), case when n <= 3 then now() end
       from generate_series(1, 8) n`,
      [biz.id, biz.id],
    );
    expect((await stack.http.get('/api/withdrawals?status=completed&limit=2', { key: biz.testKey })).body.data.meta).toEqual({
      total: 3, page: 1, limit: 2, totalPages: 2, hasNextPage: true, hasPreviousPage: false,
    });
    expect((await stack.http.get('/api/withdrawals', { key: biz.testKey })).body.data.meta.total).toBe(8);

    await insertSessions(biz, 4);
    await sql(
      stack,
      `insert into refunds (id, business_id, livemode, checkout_session_id, amount_in_cents, from_available_in_cents, from_reserves_in_cents, status, created_at, updated_at)
       select 'ref_' || md5(s.id::text), s.business_id, false, s.id, 1059, 1059, 0, 'processing', now(), now() from checkout_sessions s where s.business_id = ?`,
      [biz.id],
    );
    expect((await stack.http.get('/api/refunds?status=processing&limit=3', { key: biz.testKey })).body.pagination).toEqual({ page: 1, limit: 3, total: 4, totalPages: 2 });
    expect((await stack.http.get('/api/refunds?status=completed', { key: biz.testKey })).body.pagination.total).toBe(0);

    await sql(
      stack,
      `insert into events (id, business_id, livemode, type, payload, created_at)
       select 'evt_' || md5(? || n), ?, false, case when n <= 2 then 'refund.created' else 'checkout.succeeded' end, '{}'::jsonb, now() - n * interval '1 second'
       from generate_series(1, 5) n`,
      [biz.id, biz.id],
    );
    expect((await stack.http.get('/api/webhooks/events?eventType=refund.created', { key: biz.testKey })).body.data.meta.total).toBe(2);
    expect((await stack.http.get('/api/webhooks/events', { key: biz.testKey })).body.data.meta.total).toBe(5);
  });
});
