import { recoveryFailedFor, type SeededHistory } from '../../bench/history/seed.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { sql } from '../support/payments.js';
import { businessWithHistory } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

// A database of its own: `ledger verify` judges all of it, and the seeded rows would weigh on other files'.
const stack = useStack({}, { worker: false, ownDatabase: 'history' });

const PAID = 5000;
const count = (n: number, rule: (i: number) => boolean) => Array.from({ length: n }, (_, i) => i + 1).filter(rule).length;
const get = async (path: string, key: string) => {
  const res = await stack.http.get(path, { key });
  expect(res.status).toBe(200);
  return res.body;
};

describe('the history seed (bench/history/seed.ts)', () => {
  let biz: TestBusiness;
  let seeded: SeededHistory;
  beforeAll(async () => {
    ({ biz, seeded } = await businessWithHistory(stack, PAID));
  });

  it('leaves a ledger that ledger verify passes, with the balance equal to the entries', async () => {
    expect(await verifyLedger(stack.orm.em.fork())).toEqual({ ok: true, problems: [] });
    const balance = (await get('/api/balance', biz.testKey)).data;
    expect(balance.availableInCents).toBeGreaterThan(0);
    expect(balance.reservedInCents).toBeGreaterThan(0);
    expect(balance.pendingInCents).toBeGreaterThan(0); // the two newest withdrawals are still pending
  });

  it('gives the lists the proportions it promises: 2 % refunded, failed and expired sessions beside the paid', async () => {
    const sessions = (await get('/api/checkout/sessions?limit=20', biz.testKey)).data;
    expect(sessions.meta.total).toBe(PAID + seeded.sessions.failed + seeded.sessions.cancelled);
    expect(seeded.sessions).toEqual({ paid: PAID, failed: PAID * 0.03, cancelled: PAID * 0.05 });
    const refunded = count(PAID, (i) => i % 50 === 25);
    const declined = count(PAID, (i) => i % 500 === 7);
    expect((await get('/api/checkout/sessions?status=refunded', biz.testKey)).data.meta.total).toBe(refunded);
    expect((await get('/api/refunds', biz.testKey)).pagination.total).toBe(refunded + declined);
    expect((await get('/api/refunds?status=failed', biz.testKey)).pagination.total).toBe(declined);
    expect((await get('/api/withdrawals', biz.testKey)).data.meta.total).toBe(seeded.withdrawals);
    expect((await get('/api/withdrawals?status=pending', biz.testKey)).data.meta.total).toBe(2);
    const [reserves] = await sql(stack, `select count(*)::int as n, count(*) filter (where status = 'released')::int as released from reserves where business_id = ?`, [biz.id]);
    expect(reserves.n).toBe(PAID);
    expect(reserves.released / PAID).toBeGreaterThan(0.8); // a 90-day hold over two years
  });

  it('matches a few hundred sessions on a search by e-mail', async () => {
    const found = (await get(`/api/checkout/sessions?search=${encodeURIComponent(seeded.searchEmail)}`, biz.testKey)).data;
    expect(found.meta.total).toBeGreaterThan(250);
    expect(found.meta.total).toBeLessThan(400);
    expect(found.items.every((s: { customerEmail: string }) => s.customerEmail === seeded.searchEmail)).toBe(true);
  });

  it('shows each event with its deliveries to both endpoints and their attempts, some failed', async () => {
    const log = (await get('/api/webhooks/events?limit=5', biz.testKey)).data;
    expect(log.meta.total).toBeGreaterThan(PAID);
    for (const event of log.items) {
      expect(event.deliveries.map((d: { endpointId: string }) => d.endpointId).sort()).toEqual([seeded.endpoints.main, seeded.endpoints.recovery].sort());
      for (const delivery of event.deliveries) expect(delivery.attempts.length).toBeGreaterThan(0);
    }
    const [failed] = await sql(stack, `select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
      where d.business_id = ? and not a.succeeded`, [biz.id]);
    expect(failed.n).toBeGreaterThan(0);
  });

  it("fails the recovery endpoint's deliveries of the outage 12 days ago, one recovery page's worth or less", async () => {
    expect(seeded.recoveryFailedInWindow).toBe(recoveryFailedFor(PAID));
    const [outage] = await sql(stack, `select count(*)::int as n, min(e.created_at) as first from webhook_deliveries d join events e on e.id = d.event_id
      where d.endpoint_id = ? and d.status = 'failed' and e.created_at >= now() - interval '13 days'`, [seeded.endpoints.recovery]);
    expect(outage.n).toBe(seeded.recoveryFailedInWindow);
    expect(new Date(outage.first).getTime()).toBeGreaterThan(Date.now() - 12.01 * 86_400_000);
  });
});
