/**
 * Recovery at size: a page of 1,000 events a call, paced starts, and an indexed read of the endpoint's
 * failed deliveries. No worker runs here, so the outbox rows a call writes stay as it wrote them (no
 * relay takes them) and the pacing can be read exactly.
 */
import { FAILED_IN_WINDOW, RECOVERY_STARTS_PER_SECOND } from '../../src/modules/webhooks/webhook-deliveries.service.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const sql = <T = any>(query: string, params: unknown[] = []) => stack.orm.em.getConnection().execute<T[]>(query, params);

async function endpoint(): Promise<string> {
  const res = await stack.http.post('/api/webhooks', { url: 'https://receiver.example/hook', events: ['checkout.succeeded'] }, { key: biz.testKey });
  expect(res.status).toBe(201);
  return res.body.data.endpoint.id;
}

/** `count` events of the last hour, each with one delivery to `endpointId` ended `status`, written directly. */
async function seed(endpointId: string, count: number, status: 'failed' | 'succeeded', tag: string) {
  await sql(
    `with made as (
       insert into events (id, business_id, livemode, type, payload, created_at)
       select 'evt_' || ? || lpad(to_hex(n), 30, '0'), ?, false, 'checkout.succeeded', '{}'::jsonb, now() - interval '1 hour' + n * interval '1 millisecond'
       from generate_series(1, ?) n returning id, created_at)
     insert into webhook_deliveries (id, event_id, endpoint_id, business_id, livemode, generation, status, body, attempt_count, created_at, updated_at)
     select 'whd_' || substr(id, 5), id, ?, ?, false, 0, ?, '{}', 3, created_at, created_at from made`,
    [tag, biz.id, count, endpointId, biz.id, status],
  );
}

/** The events whose latest delivery to the endpoint is still `failed`. */
const stillFailed = (endpointId: string) =>
  sql(
    `select d.event_id from webhook_deliveries d where d.endpoint_id = ? and d.status = 'failed'
       and not exists (select 1 from webhook_deliveries n where n.event_id = d.event_id and n.endpoint_id = d.endpoint_id and n.generation > d.generation)`,
    [endpointId],
  );

describe('POST /api/webhooks/:id/recover at size', () => {
  it('re-sends at most 1,000 events a call, oldest first, says hasMore, and paces their starts at 20 a second', async () => {
    const hook = await endpoint();
    await seed(hook, 1030, 'failed', 'a1');
    const since = new Date(Date.now() - 2 * 3600_000).toISOString();
    const recover = () => stack.http.post(`/api/webhooks/${hook}/recover`, { since }, { key: biz.testKey });

    expect((await recover()).body.data).toEqual({ recovered: 1000, hasMore: true });
    const left = await stillFailed(hook);
    expect(left).toHaveLength(30);
    // The newest thirty are the ones left: the page was the oldest.
    expect(left.map((r: any) => r.event_id).sort()).toEqual(
      (await sql(`select id from events where id like 'evt_a1%' order by created_at desc limit 30`)).map((r: any) => r.id).sort(),
    );

    // The starts, in the order written: the first 20 claimed by the request itself (its fast path holds
    // the claim), each later one held until its second: 20 a second over the next 49 seconds.
    const waits = (await sql<{ wait: number }>(`select extract(epoch from claimed_until - created_at)::float as wait from outbox where message::text like ? order by id`, [`%${hook}%`])).map((r) => r.wait);
    expect(waits).toHaveLength(1000);
    expect(waits.slice(0, RECOVERY_STARTS_PER_SECOND).every((w) => w >= 29)).toBe(true);
    expect(waits.slice(RECOVERY_STARTS_PER_SECOND).map(Math.round)).toEqual(Array.from({ length: 980 }, (_, i) => Math.floor((i + 20) / 20)));

    expect((await recover()).body.data).toEqual({ recovered: 30, hasMore: false });
    expect((await recover()).body.data).toEqual({ recovered: 0, hasMore: false });
    expect(await stillFailed(hook)).toHaveLength(0);
  }, 60_000);

  it("reads the endpoint's failed deliveries through their index, not its whole history", async () => {
    const hook = await endpoint();
    await seed(hook, 50_000, 'succeeded', 'b1');
    await seed(hook, 200, 'failed', 'b2');
    await sql('analyze webhook_deliveries');
    await sql('analyze events');
    const since = new Date(Date.now() - 2 * 3600_000);
    const [plan] = await sql<{ 'QUERY PLAN': unknown }>(`explain (format json) ${FAILED_IN_WINDOW}`, [hook, since, new Date(), 1001]);
    const text = JSON.stringify(plan['QUERY PLAN']);
    expect(text).toContain('webhook_deliveries_failed_by_event_idx');
    expect(text).not.toMatch(/"Node Type":"Seq Scan","[^}]*"Relation Name":"webhook_deliveries"/);
    expect(text).not.toMatch(/"Relation Name":"webhook_deliveries"[^}]*"Node Type":"Seq Scan"/);
  }, 60_000);

  it('bounds its read by the window at both ends: a narrow window reads its own failed deliveries, not every one since its start', async () => {
    const hook = await endpoint();
    // 600 failed deliveries in the last hour, of events a millisecond apart; a window of 50 ms at its start holds about 50.
    await seed(hook, 600, 'failed', 'c1');
    await sql('analyze webhook_deliveries');
    const [first] = await sql<{ at: Date }>(`select min(created_at) as at from events where id like 'evt_c1%'`);
    const since = new Date(first.at);
    const until = new Date(since.getTime() + 49);
    const inWindow = (await sql(`select 1 from events where id like 'evt_c1%' and created_at between ? and ?`, [since, until])).length;
    expect(inWindow).toBeGreaterThanOrEqual(49);
    expect(inWindow).toBeLessThanOrEqual(50);
    const [plan] = await sql<{ 'QUERY PLAN': any }>(`explain (analyze, format json) ${FAILED_IN_WINDOW}`, [hook, since, until, 1001]);
    // What the walk of the endpoint's failed deliveries read (kept or filtered away), as EXPLAIN ANALYZE counts it.
    const read: number[] = [];
    const walk = (node: any) => {
      if (node['Index Name'] === 'webhook_deliveries_failed_by_event_idx') read.push(node['Actual Rows'] * node['Actual Loops'] + (node['Rows Removed by Filter'] ?? 0));
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan['QUERY PLAN'][0].Plan);
    expect(read).toEqual([inWindow]);
    const recovered = await stack.http.post(`/api/webhooks/${hook}/recover`, { since: since.toISOString(), until: until.toISOString() }, { key: biz.testKey });
    expect(recovered.body.data).toEqual({ recovered: inWindow, hasMore: false });
  }, 60_000);
});
