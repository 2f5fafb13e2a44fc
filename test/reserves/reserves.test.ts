import { jest } from '@jest/globals';
import { transfer, lockBalance, postTransaction, verifyLedger } from '../../src/modules/ledger/index.js';
import { releaseReserve, consumeReserves } from '../../src/modules/reserves/index.js';
import { eventually, paidSession, sql } from '../support/payments.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

// Its ledger-verify tests post moves no payment could make: a database apart, so others' verify sees real money only.
const stack = useStack({}, { fabricatesState: true });

const get = (path: string, key: string) => stack.http.get(path, { key });
const DAY = 86_400_000;
/** Jest's fake timers for the clock alone: the stack's timers, sockets and promises run as they do. */
const ALL_BUT_DATE: Array<'hrtime' | 'nextTick' | 'performance' | 'queueMicrotask' | 'setImmediate' | 'clearImmediate' | 'setInterval' | 'clearInterval' | 'setTimeout' | 'clearTimeout'> = ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'];

/** The release activity's own call: one transaction around the service. */
const release = (reserveId: string) => stack.orm.em.fork().transactional((tx) => releaseReserve(tx, reserveId));
/** Time passes for one reserve: its hold ends a second ago (the real workflow still sleeps its 90 days). */
const holdEnded = (reserveId: string) => sql(stack, `update reserves set release_at = now() - interval '1 second' where id = ?`, [reserveId]);

describe('GET /api/balance', () => {
  it('shows zeros and no updatedAt before any money moved', async () => {
    const biz = await stack.business();
    const res = await get('/api/balance', biz.testKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { availableInCents: 0, reservedInCents: 0, pendingInCents: 0, currency: 'USD', livemode: false, updatedAt: null },
    });
  });

  it('shows a payment split into available and reserved, in its own mode only', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    const test = await get('/api/balance', biz.testKey);
    expect(test.body.data).toMatchObject({ availableInCents: 4048, reservedInCents: 450, pendingInCents: 0, currency: 'USD', livemode: false });
    expect(new Date(test.body.data.updatedAt).toISOString()).toBe(test.body.data.updatedAt);
    const live = await get('/api/balance', biz.liveKey);
    expect(live.body.data).toMatchObject({ availableInCents: 0, reservedInCents: 0, livemode: true });
    await paidSession(stack, biz, biz.liveKey);
    expect((await get('/api/balance', biz.liveKey)).body.data).toMatchObject({ availableInCents: 4048, reservedInCents: 450 });
    expect((await get('/api/balance', biz.testKey)).body.data).toMatchObject({ availableInCents: 4048, reservedInCents: 450 });
  });

  it('limits each API key to 30 calls a minute', async () => {
    const biz = await stack.business();
    for (let i = 0; i < 30; i++) expect((await get('/api/balance', biz.testKey)).status).toBe(200);
    const limited = await get('/api/balance', biz.testKey);
    expect(limited.status).toBe(429);
    expect(limited.body.error.type).toBe('rate_limit_exceeded');
    expect((await get('/api/balance', biz.liveKey)).status).toBe(200);
  });
});

describe('reserves endpoints', () => {
  let biz: TestBusiness;
  let first: any;
  let second: any;
  beforeAll(async () => {
    biz = await stack.business();
    first = await paidSession(stack, biz);
    second = await paidSession(stack, biz);
  });

  it('lists reserves newest first with every field of the spec, paged by cursor', async () => {
    const page1 = await get('/api/reserves?limit=1', biz.testKey);
    expect(page1.status).toBe(200);
    expect(page1.body.data.items).toHaveLength(1);
    const reserve = page1.body.data.items[0];
    expect(reserve).toEqual({
      id: expect.stringMatching(/^res_/),
      paymentId: second.id,
      originalAmountInCents: 4658,
      reserveAmountInCents: 450,
      reservePercentage: 10,
      status: 'active',
      releasedAmountInCents: 0,
      releaseAt: expect.any(String),
      releasedAt: null,
      reservedAt: expect.any(String),
    });
    expect(Date.parse(reserve.releaseAt) - Date.parse(reserve.reservedAt)).toBe(90 * DAY);
    expect(page1.body.data.nextCursor).toEqual(expect.any(String));
    const page2 = await get(`/api/reserves?limit=1&cursor=${page1.body.data.nextCursor}`, biz.testKey);
    expect(page2.body.data.items.map((r: any) => r.paymentId)).toEqual([first.id]);
    expect(page2.body.data.nextCursor).toBeNull();
  });

  it('filters by status and validates the query', async () => {
    expect((await get('/api/reserves?status=active', biz.testKey)).body.data.items).toHaveLength(2);
    expect((await get('/api/reserves?status=released', biz.testKey)).body.data).toEqual({ items: [], nextCursor: null });
    const bad = await get('/api/reserves?status=held&limit=0', biz.testKey);
    expect(bad.status).toBe(400);
    expect(bad.body.error.errors.map((e: any) => e.path)).toEqual([['status'], ['limit']]);
    expect((await get('/api/reserves?cursor=garbage', biz.testKey)).body.error.errors).toEqual([{ path: ['cursor'], message: 'Invalid cursor' }]);
  });

  it('reads one reserve, and 404s an unknown one or another business or mode', async () => {
    const [listed] = (await get('/api/reserves', biz.testKey)).body.data.items;
    const one = await get(`/api/reserves/${listed.id}`, biz.testKey);
    expect(one.body).toEqual({ success: true, data: listed });
    const other = await stack.business();
    for (const [path, key] of [
      [`/api/reserves/res_unknown`, biz.testKey],
      [`/api/reserves/${listed.id}`, other.testKey],
      [`/api/reserves/${listed.id}`, biz.liveKey],
    ]) {
      const res = await get(path, key);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found', message: 'Reserve not found' });
    }
    expect((await get('/api/reserves', other.testKey)).body.data.items).toEqual([]);
  });

  it('summarises what is held and the next release', async () => {
    const [newest, oldest] = (await get('/api/reserves', biz.testKey)).body.data.items;
    expect((await get('/api/reserves/summary', biz.testKey)).body).toEqual({
      success: true,
      data: {
        totalReservedAmountInCents: 900,
        activeReserveCount: 2,
        upcomingReleaseCount: 2,
        nextReleaseAt: oldest.releaseAt,
        nextReleaseAmountInCents: 450,
      },
    });
    expect(newest.releaseAt >= oldest.releaseAt).toBe(true);
    expect((await get('/api/reserves/summary', biz.liveKey)).body.data).toEqual({
      totalReservedAmountInCents: 0,
      activeReserveCount: 0,
      upcomingReleaseCount: 0,
      nextReleaseAt: null,
      nextReleaseAmountInCents: null,
    });
  });

  it('gives the reserve configuration', async () => {
    expect((await get('/api/reserves/config', biz.testKey)).body.data).toEqual({ enabled: true, reservePercentage: 10, holdPeriodDays: 90, holdPeriod: 'P90D' });
    const none = await stack.business({ reserveBps: 0, reserveHoldMs: 36 * 3600 * 1000 });
    expect((await get('/api/reserves/config', none.testKey)).body.data).toEqual({ enabled: false, reservePercentage: 0, holdPeriodDays: 1.5, holdPeriod: 'P1DT12H' });
  });

  it('needs an API key', async () => {
    expect((await stack.http.get('/api/reserves')).status).toBe(401);
    expect((await stack.http.get('/api/balance')).status).toBe(401);
  });
});

describe('reserve release on the real stack', () => {
  it('releases a short-hold reserve on time: the reserve is released and the balance moved', async () => {
    const biz = await stack.business({ reserveHoldMs: 2000 });
    const session = await paidSession(stack, biz);
    const [{ id }] = await sql(stack, 'select id from reserves where payment_id = ?', [session.id]);
    const released = await eventually(async () => {
      const res = await get(`/api/reserves/${id}`, biz.testKey);
      return res.body.data.status === 'released' ? res.body.data : null;
    });
    expect(released).toMatchObject({ status: 'released', releasedAmountInCents: 450 });
    expect(Date.parse(released.releasedAt)).toBeGreaterThanOrEqual(Date.parse(released.releaseAt));
    expect((await get('/api/balance', biz.testKey)).body.data).toMatchObject({ availableInCents: 4498, reservedInCents: 0 });
    expect(await stack.temporal.workflow.getHandle(`reserve-release-${id}`).result()).toBe('released');
  });

  it("judges releaseAt by the database's clock: a worker whose clock runs hours ahead releases nothing early", async () => {
    const biz = await stack.business();
    const session = await paidSession(stack, biz);
    const [{ id }] = await sql(stack, `update reserves set release_at = now() + interval '1 hour' where payment_id = ? returning id`, [session.id]);
    // This process's clock (the worker's, as the activity sees it) two hours ahead of the database's.
    jest.useFakeTimers({ now: Date.now() + 2 * 3_600_000, doNotFake: ALL_BUT_DATE });
    try {
      expect(await release(id)).toMatchObject({ status: 'active', releasedAmountInCents: 0, notDueUntil: expect.any(String) });
    } finally {
      jest.useRealTimers();
    }
    await holdEnded(id);
    jest.useFakeTimers({ now: Date.now() + 2 * 3_600_000, doNotFake: ALL_BUT_DATE });
    try {
      expect(await release(id)).toEqual({ status: 'released', releasedAmountInCents: 450 });
    } finally {
      jest.useRealTimers();
    }
    // Stamped by the database's clock too, not the process's two hours ahead.
    const [{ drift }] = await sql(stack, 'select abs(extract(epoch from released_at - now()))::float as drift from reserves where id = ?', [id]);
    expect(drift).toBeLessThan(60);
  });

  it('creates no reserve when the business holds none back', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    const session = await paidSession(stack, biz);
    expect(await sql(stack, 'select 1 from reserves where payment_id = ?', [session.id])).toHaveLength(0);
    expect((await get('/api/balance', biz.testKey)).body.data).toMatchObject({ availableInCents: 4498, reservedInCents: 0 });
  });
});

describe('consuming reserves (for refunds)', () => {
  /** What a refund does with what consumeReserves took: out of `reserved`, into refunds in flight. */
  async function consume(biz: TestBusiness, amount: number, ref: string, pageSize?: number) {
    return stack.orm.em.fork().transactional(async (tx) => {
      const owner = { businessId: biz.id, livemode: false };
      const balance = await lockBalance(tx, owner);
      const result = await consumeReserves(tx, owner, amount, pageSize);
      if (result.taken) {
        postTransaction(tx, balance, {
          kind: 'test.refund',
          referenceId: ref,
          lines: [
            { account: 'reserved', amount: -result.taken },
            { account: 'refunds_in_flight', amount: result.taken },
          ],
        });
      }
      return result;
    });
  }
  const reservesOf = (biz: TestBusiness) =>
    sql(stack, `select id, status, consumed_amount_in_cents::int as consumed, released_amount_in_cents::int as released
                from reserves where business_id = ? order by reserved_at, id`, [biz.id]);

  it('takes from the oldest reserves first; the timer then releases only what is left', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    await paidSession(stack, biz);
    const [oldest, newer] = await reservesOf(biz);
    const result = await consume(biz, 600, `${biz.id}-1`);
    expect(result).toEqual({ taken: 600, parts: [{ reserveId: oldest.id, amount: 450 }, { reserveId: newer.id, amount: 150 }] });
    expect(await reservesOf(biz)).toEqual([
      { id: oldest.id, status: 'consumed', consumed: 450, released: 0 },
      { id: newer.id, status: 'partially_released', consumed: 150, released: 0 },
    ]);
    // 90 days early, whoever asks: nothing moves, and the answer says when the reserve is due.
    const [{ release_at: newerReleaseAt }] = await sql(stack, 'select release_at from reserves where id = ?', [newer.id]);
    expect(await release(newer.id)).toEqual({ status: 'partially_released', releasedAmountInCents: 0, notDueUntil: new Date(newerReleaseAt).toISOString() });
    expect((await get('/api/balance', biz.testKey)).body.data).toMatchObject({ availableInCents: 2 * 4048, reservedInCents: 300 });
    expect((await get(`/api/reserves/${newer.id}`, biz.testKey)).body.data).toMatchObject({ status: 'partially_released', releasedAt: null });

    await holdEnded(oldest.id);
    await holdEnded(newer.id);
    expect(await release(oldest.id)).toEqual({ status: 'consumed', releasedAmountInCents: 0 });
    expect(await release(newer.id)).toEqual({ status: 'released', releasedAmountInCents: 300 });
    expect(await release(newer.id)).toEqual({ status: 'released', releasedAmountInCents: 300 });
    expect((await get('/api/balance', biz.testKey)).body.data).toMatchObject({ availableInCents: 2 * 4048 + 300, reservedInCents: 0 });
    expect(await consume(biz, 10, `${biz.id}-2`)).toEqual({ taken: 0, parts: [] });
  });

  it('reads the reserves a page at a time, oldest first, and stops at the page that covers the amount', async () => {
    const biz = await stack.business();
    for (let i = 0; i < 5; i++) await paidSession(stack, biz); // 450 held each
    const [r1, r2, r3, r4, r5] = await reservesOf(biz);
    // Pages of two: the first gives 900, the second 100 of its first reserve, and the fifth is never read.
    expect(await consume(biz, 1000, `${biz.id}-paged`, 2)).toEqual({
      taken: 1000,
      parts: [{ reserveId: r1.id, amount: 450 }, { reserveId: r2.id, amount: 450 }, { reserveId: r3.id, amount: 100 }],
    });
    expect((await reservesOf(biz)).map((r) => [r.id, r.status, r.consumed])).toEqual([
      [r1.id, 'consumed', 450],
      [r2.id, 'consumed', 450],
      [r3.id, 'partially_released', 100],
      [r4.id, 'active', 0],
      [r5.id, 'active', 0],
    ]);
    // More than is held: every remaining page is read and what they hold is taken.
    expect(await consume(biz, 2000, `${biz.id}-paged-2`, 2)).toEqual({
      taken: 1250,
      parts: [{ reserveId: r3.id, amount: 350 }, { reserveId: r4.id, amount: 450 }, { reserveId: r5.id, amount: 450 }],
    });
    expect((await get('/api/balance', biz.testKey)).body.data.reservedInCents).toBe(0);
  });

  it('never lets a refund and the release take the same cents, however they interleave', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    const [reserve] = await reservesOf(biz);
    await holdEnded(reserve.id);
    const [released, consumed] = await Promise.all([release(reserve.id), consume(biz, 300, `${biz.id}-race`)]);
    expect(released!.releasedAmountInCents + consumed.taken).toBe(450);
    const [after] = await reservesOf(biz);
    expect(after.consumed + after.released).toBe(450);
    expect((await get('/api/balance', biz.testKey)).body.data.reservedInCents).toBe(0);
  });
});

describe('ledger verify', () => {
  it('passes after a mixed run and names the offender when a cached balance is tampered with', async () => {
    const biz = await stack.business();
    const paid = await paidSession(stack, biz);
    await paidSession(stack, biz, biz.liveKey);
    const [reserve] = await sql(stack, 'select id from reserves where payment_id = ?', [paid.id]);
    await holdEnded(reserve.id);
    await release(reserve.id);
    // The database is shared with other test files, which may break invariants on purpose: only this
    // business's rows are judged here.
    const mine = (problems: string[]) => problems.filter((p) => p.includes(biz.id) || p.includes(paid.id) || p.includes(reserve.id));
    expect(mine((await verifyLedger(stack.orm.em.fork())).problems)).toEqual([]);
    await sql(stack, 'update balances set available = available + 1 where business_id = ? and livemode = false', [biz.id]);
    const broken = await verifyLedger(stack.orm.em.fork());
    expect(broken.ok).toBe(false);
    expect(mine(broken.problems)).toEqual([`business ${biz.id} (test): cached available is 4499 but its entries sum to 4498`]);
    await sql(stack, 'update balances set available = available - 1 where business_id = ? and livemode = false', [biz.id]);
  });

  it("counts a reserve's later releases (`<id>#<released before>`) with its first against what it says it released", async () => {
    const biz = await stack.business();
    const paid = await paidSession(stack, biz);
    await paidSession(stack, biz); // its reserve holds the cents the extra release below moves
    const [reserve] = await sql(stack, 'select id from reserves where payment_id = ?', [paid.id]);
    await holdEnded(reserve.id);
    await release(reserve.id);
    expect((await verifyLedger(stack.orm.em.fork())).problems.filter((p) => p.includes(reserve.id))).toEqual([]);
    await stack.orm.em.fork().transactional(async (tx) => {
      const balance = await lockBalance(tx, { businessId: biz.id, livemode: false });
      postTransaction(tx, balance, { kind: 'reserve.release', referenceId: `${reserve.id}#450`, lines: transfer('reserved', 'available', 10) });
    });
    const { problems } = await verifyLedger(stack.orm.em.fork());
    expect(problems.filter((p) => p.includes(reserve.id))).toEqual([`reserve ${reserve.id} says 450 released but the ledger moved 460`]);
  });

  it('names a completed session without its payment transaction and a reserve whose amounts do not add up', async () => {
    const biz = await stack.business();
    const session = await paidSession(stack, biz);
    await sql(stack, `update checkout_sessions set status = 'pending' where id = ?`, [session.id]);
    const [reserve] = await sql(stack, 'select id from reserves where payment_id = ?', [session.id]);
    await sql(stack, `update reserves set status = 'released' where id = ?`, [reserve.id]);
    const { problems } = await verifyLedger(stack.orm.em.fork());
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^payment transaction ltx_\\w+ belongs to session ${session.id}, which is pending$`)),
        `reserve ${reserve.id} (released): 450 first held, 0 consumed and 0 released do not add up or do not match its status`,
      ]),
    );
    await sql(stack, `update checkout_sessions set status = 'completed' where id = ?`, [session.id]);
    await sql(stack, `update reserves set status = 'active' where id = ?`, [reserve.id]);
  });
});
