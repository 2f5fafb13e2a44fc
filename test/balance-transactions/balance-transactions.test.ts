/**
 * Balance transactions: every cent of the balance explained, one item per money move and
 * balance type. The invariant under random sequences is in balance-transactions-invariant.test.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runCommand } from '../../src/cli/commands.js';
import { CARDS, createSession, eventually, payToCompletion, payBody, paidSession, sql } from '../support/payments.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack();

const get = (path: string, key: string) => stack.http.get(path, { key });
const list = async (biz: TestBusiness, query = '') => {
  const res = await get(`/api/balance/transactions${query}`, biz.testKey);
  expect(res.status).toBe(200);
  return res.body.data;
};
const TXN = /^txn_[0-9a-f]{32}_[apr]$/;

async function reserveOf(sessionId: string) {
  const [row] = await sql(stack, 'select id, release_at from reserves where payment_id = ?', [sessionId]);
  return { id: row.id as string, releaseAt: new Date(row.release_at).toISOString() };
}

describe('GET /api/balance/transactions', () => {
  it('shows a payment as its available share with the fee, and its reserve hold, newest first', async () => {
    const biz = await stack.business();
    const session = await paidSession(stack, biz);
    const reserve = await reserveOf(session.id);
    const data = await list(biz);
    expect(data.meta).toEqual({ hasMore: false, nextCursor: null });
    const [hold, payment] = data.items;
    expect(payment).toEqual({
      id: expect.stringMatching(TXN),
      type: 'payment',
      amountInCents: 4208,
      feeInCents: 160,
      netInCents: 4048,
      balanceType: 'available',
      sourceId: session.id,
      createdAt: expect.any(String),
      availableOn: payment.createdAt,
      description: `Payment for checkout session ${session.id}`,
    });
    expect(hold).toEqual({
      id: expect.stringMatching(TXN),
      type: 'reserve_hold',
      amountInCents: 450,
      feeInCents: 0,
      netInCents: 450,
      balanceType: 'reserved',
      sourceId: reserve.id,
      createdAt: payment.createdAt,
      availableOn: reserve.releaseAt,
      description: `Reserve ${reserve.id} held from a payment`,
    });
    // One ledger transaction touching two balance types: two items, ids differing only in the suffix.
    expect(hold.id.slice(0, -2)).toBe(payment.id.slice(0, -2));
  });

  it('reads one item by id, and answers 404 not_found for an unknown or malformed id', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    const [item] = (await list(biz)).items;
    const one = await get(`/api/balance/transactions/${item.id}`, biz.testKey);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ success: true, data: item });
    for (const id of [`${item.id.slice(0, -1)}p`, 'txn_nope', item.id.replace('txn_', 'ltx_')]) {
      const missing = await get(`/api/balance/transactions/${id}`, biz.testKey);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ type: 'not_found', message: 'Balance transaction not found' });
    }
    // Another business's item, or the same business's in the other mode, is not found either.
    const other = await stack.business();
    expect((await get(`/api/balance/transactions/${item.id}`, other.testKey)).status).toBe(404);
    expect((await get(`/api/balance/transactions/${item.id}`, biz.liveKey)).status).toBe(404);
  });

  it('shows a refund funded from reserves, with its funding, and a fully held payment with its fee', async () => {
    const biz = await stack.business({ reserveBps: 10_000 });
    const first = await paidSession(stack, biz);
    const second = await paidSession(stack, biz);
    const [r1, r2] = [await reserveOf(first.id), await reserveOf(second.id)];
    const created = await stack.http.post('/api/refunds', { checkoutSessionId: first.id }, { key: biz.testKey });
    expect(created.status).toBe(201);
    const refundId = created.body.data.id;
    await eventually('the refund to complete', async () => (await get(`/api/refunds/${refundId}`, biz.testKey)).body.data.status === 'completed');

    const items = (await list(biz)).items;
    const refund = items.filter((i: any) => i.type === 'refund');
    expect(refund).toEqual([
      {
        id: expect.stringMatching(/_r$/),
        type: 'refund',
        amountInCents: -4658,
        feeInCents: 0,
        netInCents: -4658,
        balanceType: 'reserved',
        sourceId: refundId,
        createdAt: expect.any(String),
        availableOn: refund[0].createdAt,
        description: `Refund ${refundId}`,
        funding: [
          { from: r1.id, amountInCents: 4498 },
          { from: r2.id, amountInCents: 160 },
        ].sort((a, b) => (a.from < b.from ? -1 : 1)),
      },
    ]);
    // All of the subtotal held: the payment moves nothing into available but still shows its fee.
    const payments = items.filter((i: any) => i.type === 'payment');
    expect(payments.map((p: any) => [p.amountInCents, p.feeInCents, p.netInCents])).toEqual([[160, 160, 0], [160, 160, 0]]);
    // The completion moves only refunds_in_flight, in no balance: nothing more than the refund item.
    expect(items.map((i: any) => i.type).sort()).toEqual(['payment', 'payment', 'refund', 'reserve_hold', 'reserve_hold']);
  });

  it('shows a failed refund giving back what it took, each part to its balance', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    const session = await createSession(stack, biz.testKey);
    await payToCompletion(stack, session.id, payBody(CARDS.refundDeclined));
    // available 8096, reserved 900: the refund of 4658 is taken from available alone.
    const created = await stack.http.post('/api/refunds', { checkoutSessionId: session.id }, { key: biz.testKey });
    const refundId = created.body.data.id;
    await eventually('the refund to fail', async () => (await get(`/api/refunds/${refundId}`, biz.testKey)).body.data.status === 'failed');
    const data = await list(biz, '?type=refund_failure');
    expect(data.items).toEqual([
      expect.objectContaining({ type: 'refund_failure', amountInCents: 4658, netInCents: 4658, balanceType: 'available', sourceId: refundId }),
    ]);
    expect(data.items[0]).not.toHaveProperty('funding');
    expect((await list(biz, '?type=refund')).items).toEqual([
      expect.objectContaining({ amountInCents: -4658, balanceType: 'available', funding: [{ from: 'available', amountInCents: 4658 }] }),
    ]);
  });

  it('filters by type and by creation time, createdFrom inclusive and createdTo exclusive', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    await paidSession(stack, biz);
    const all = (await list(biz)).items;
    expect(all).toHaveLength(4);
    expect((await list(biz, '?type=reserve_hold')).items.map((i: any) => i.id)).toEqual(all.filter((i: any) => i.type === 'reserve_hold').map((i: any) => i.id));
    expect((await list(biz, '?type=fee')).items).toEqual([]);
    const newest = all[0].createdAt;
    const oldest = all[3].createdAt;
    expect((await list(biz, `?createdFrom=${newest}`)).items.map((i: any) => i.createdAt)).toEqual([newest, newest]);
    expect((await list(biz, `?createdTo=${newest}`)).items.map((i: any) => i.createdAt)).toEqual([oldest, oldest]);
    expect((await list(biz, `?createdFrom=${oldest}&createdTo=${newest}&type=payment`)).items).toHaveLength(1);

    for (const query of ['?type=charge', '?limit=0', '?limit=101', '?createdFrom=yesterday']) {
      const res = await get(`/api/balance/transactions${query}`, biz.testKey);
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('validation_error');
    }
  });

  it('pages by cursor with no duplicates or skips while new money moves are posted', async () => {
    const biz = await stack.business();
    for (let i = 0; i < 4; i++) await paidSession(stack, biz);
    const before = (await list(biz, '?limit=100')).items.map((i: any) => i.id);
    expect(before).toHaveLength(8);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const data: any = await list(biz, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...data.items.map((i: any) => i.id));
      expect(data.meta.hasMore).toBe(data.meta.nextCursor !== null);
      cursor = data.meta.nextCursor;
      // A payment after the first page: newer than every cursor, so it appears on no later page.
      if (pages++ === 0) await paidSession(stack, biz);
    } while (cursor);
    expect(seen).toEqual(before);
    expect(pages).toBe(3);
  });

  it('refuses a tampered cursor with 400 validation_error naming the cursor', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    const { meta } = await list(biz, '?limit=1');
    const forged = Buffer.from(JSON.stringify(['2026-11-01T00:00:00.000Z', "txn_x' or 1=1"])).toString('base64url');
    expect(meta.nextCursor).toEqual(expect.any(String));
    // Another list's cursor (a reserve's), a forged id, a bad timestamp, and no base64 JSON at all.
    const encode = (at: string, id: string) => Buffer.from(JSON.stringify([at, id])).toString('base64url');
    const reserveCursor = encode('2026-11-01T00:00:00.000Z', `res_${'0'.repeat(32)}`);
    const badTime = encode('2026-13-01T00:00:00.000Z', `txn_${'0'.repeat(32)}_a`);
    for (const cursor of [reserveCursor, forged, badTime, 'not-a-cursor']) {
      const res = await get(`/api/balance/transactions?cursor=${cursor}`, biz.testKey);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'validation_error', errors: [{ path: ['cursor'], message: 'Invalid cursor' }] });
    }
  });

  it("is not held to the balance's 30 calls a minute", async () => {
    const biz = await stack.business();
    for (let i = 0; i < 31; i++) expect((await get('/api/balance/transactions?limit=1', biz.testKey)).status).toBe(200);
  });
});

describe('admin CLI: balance-transactions export', () => {
  it('writes a CSV of the range, oldest first, with a header and quoted fields', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    const items = (await list(biz)).items;
    const run = (options: Record<string, string>) => runCommand(stack.orm.em.fork(), ['balance-transactions', 'export', biz.id], options);
    const out = await run({ mode: 'test', from: '2020-01-01', to: '2100-01-01' });
    const lines = out.text.split('\n');
    expect(lines[0]).toBe('id,type,amountInCents,feeInCents,netInCents,balanceType,sourceId,createdAt,availableOn,description,funding');
    expect(lines.slice(1)).toEqual(
      [...items].reverse().map((i: any) => [i.id, i.type, i.amountInCents, i.feeInCents, i.netInCents, i.balanceType, i.sourceId, i.createdAt, i.availableOn, i.description, ''].join(',')),
    );
    expect((await run({ mode: 'test', from: '2020-01-01', to: '2020-02-01' })).text.split('\n')).toHaveLength(1);
    expect((await run({ mode: 'live' })).text.split('\n')).toHaveLength(1);
  });

  it('runs as npm run admin does: stdout is the CSV, a bad date is a usage error', async () => {
    const biz = await stack.business();
    await paidSession(stack, biz);
    const run = promisify(execFile);
    const admin = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'balance-transactions', 'export', biz.id, ...args], {
        env: { ...process.env, ALLOW_TEST_ENV: 'true', DATABASE_URL: stack.databaseUrl, NODE_OPTIONS: '' },
      });
    const { stdout } = await admin('--mode', 'test', '--from', '2020-01-01', '--to', '2100-01-01T00:00:00Z');
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).map((line) => line.split(',')[1])).toEqual(['payment', 'reserve_hold']);
    await expect(admin('--from', 'last week')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--from') });
  }, 60_000);
});
