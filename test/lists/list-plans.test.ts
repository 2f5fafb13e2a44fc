/**
 * Every read a merchant's dashboard makes, checked by its query plans on a seeded history of 20,000
 * payments: each SELECT the service runs for it (captured from the ORM's log as it ran) is EXPLAINed and
 * run (ANALYZE), and none may read a growing table whole: no sequential scan of one, and no scan of one
 * that reads (keeps or filters away) more than a tenth of the seed's sessions, which is what an index
 * walked past every row of the business with a filter would do. The plans are taken with
 * `enable_seqscan = off`, so that on this small seed a sequential scan appears only where no index can
 * serve the query at all, not where the planner prefers one for a few thousand rows. bench/history
 * measures the same reads at a million.
 */
import type { SeededHistory } from '../../bench/history/seed.js';
import { FAILED_IN_WINDOW, RECOVERY_PAGE } from '../../src/modules/webhooks/webhook-deliveries.service.js';
import { businessWithHistory } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

/** Tables that grow with a business's traffic: none may be read whole to answer a request. */
const GROWING = new Set([
  'checkout_sessions', 'session_items', 'refunds', 'refund_reserve_parts', 'withdrawals', 'reserves', 'events', 'webhook_deliveries',
  'webhook_attempts', 'ledger_transactions', 'ledger_entries', 'outbox', 'disputes', 'dispute_reserve_parts', 'simulator_charges', 'row_count_deltas',
]);

// What the ORM logs with `query-params`: each statement with its parameters in place.
let capturing = false;
const statements: string[] = [];
const logger = (message: string) => {
  const sql = /^\[query\] (.*?)(?: \[took [^\]]*\])?$/s.exec(message)?.[1];
  if (capturing && sql && /^\s*(select|with)\b/i.test(sql)) statements.push(sql);
};
const stack = useStack({}, { worker: false, ownDatabase: 'plans', orm: { debug: ['query', 'query-params'], colors: false, logger } });

let biz: TestBusiness;
let seeded: SeededHistory;
beforeAll(async () => {
  ({ biz, seeded } = await businessWithHistory(stack, PAID));
}, 300_000);

const PAID = 20_000;
/** More rows than a page, its counts or its capped total need; fewer than a walk through a business's history reads. */
const MOST_ROWS_READ = PAID / 10;

/** The scans of growing tables in a plan that read a business's history whole: sequential, or past too many rows. */
function wholeScans(plan: unknown): string[] {
  const found: string[] = [];
  const walk = (node: any) => {
    const table = node['Relation Name'];
    if (GROWING.has(table)) {
      const read = (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      if (node['Node Type'] === 'Seq Scan') found.push(`${table}: sequential scan`);
      else if (read > MOST_ROWS_READ) found.push(`${table}: ${node['Node Type']} read ${read} rows`);
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk((plan as any)[0].Plan);
  return found;
}

/** Each SELECT a GET of `path` ran, with the growing tables its plan scans whole. */
async function plansOf(path: string): Promise<{ sql: string; scans: string[] }[]> {
  statements.length = 0;
  capturing = true;
  const res = await stack.http.get(path, { key: biz.testKey });
  capturing = false;
  expect(res.status).toBe(200);
  const found = [];
  for (const sql of [...statements]) {
    // In a transaction of its own, so the setting holds for this EXPLAIN's connection and ends with it.
    const plan = await stack.orm.em.fork().transactional(async (tx) => {
      await tx.execute('set local enable_seqscan = off');
      const [row] = await tx.execute<{ 'QUERY PLAN': unknown }[]>(`explain (analyze, format json) ${sql}`);
      return row['QUERY PLAN'];
    });
    found.push({ sql: sql.slice(0, 300), scans: wholeScans(plan) });
  }
  return found;
}

describe('no read a merchant makes scans a growing table whole', () => {
  const reads: [string, () => string][] = [
    ['the session list', () => '/api/checkout/sessions?limit=20'],
    ['a status filter', () => '/api/checkout/sessions?status=refunded&limit=20'],
    ['a search by e-mail', () => `/api/checkout/sessions?search=${encodeURIComponent(seeded.searchEmail)}&limit=20`],
    ['a search by part of an e-mail', () => `/api/checkout/sessions?search=${encodeURIComponent(seeded.searchEmail.split('@')[0])}%40&limit=20`],
    ['a search of the descriptions', () => '/api/checkout/sessions?search=Order%20%2312345&limit=20'],
    ['a date range', () => `/api/checkout/sessions?from=${encodeURIComponent(new Date(Date.now() - 30 * 86_400_000).toISOString())}&limit=20`],
    ['page 50 by page=', () => '/api/checkout/sessions?page=50&limit=20'],
    ['the withdrawal list by status', () => '/api/withdrawals?status=failed&limit=20'],
    ['the refund list by status', () => '/api/refunds?status=failed&limit=20'],
    ['the event log', () => '/api/webhooks/events?limit=20'],
    ['the event log by type', () => '/api/webhooks/events?eventType=refund.created&limit=20'],
    ['the balance', () => '/api/balance'],
    ['the reserve summary', () => '/api/reserves/summary'],
    ['the reserves by status', () => '/api/reserves?status=released&limit=20'],
    ['balance transactions', () => '/api/balance/transactions?limit=20'],
    ['balance transactions by type', () => '/api/balance/transactions?type=refund&limit=20'],
    ['disputes', () => '/api/disputes?limit=20'],
  ];

  it.each(reads)('%s', async (_name, path) => {
    const plans = await plansOf(path());
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.filter((p) => p.scans.length)).toEqual([]);
  });
});

describe('webhook recovery reads the failed deliveries of its window, not of every day since its start', () => {
  // The seed's recovery endpoint failed through an outage from 12 days ago; older failures are sparse.
  const DAY = 86_400_000;
  it.each([
    ['a day of the outage', 12, 11],
    ['its last hour', 1.5, 1.5 - 1 / 24],
    ['the whole outage', 12, 0],
  ])('%s', async (_name, fromDaysAgo, toDaysAgo) => {
    const now = Date.now();
    const [since, until] = [new Date(now - fromDaysAgo * DAY), new Date(now - toDaysAgo * DAY)];
    const failed = await stack.orm.em.getConnection().execute<{ n: number }[]>(
      `select count(*)::int as n from webhook_deliveries d join events e on e.id = d.event_id
       where d.endpoint_id = ? and d.status = 'failed' and e.created_at between ? and ?`,
      [seeded.endpoints.recovery, since, until],
    );
    const plan = await stack.orm.em.fork().transactional(async (tx) => {
      await tx.execute('set local enable_seqscan = off');
      const [row] = await tx.execute<{ 'QUERY PLAN': any }[]>(`explain (analyze, format json) ${FAILED_IN_WINDOW}`, [seeded.endpoints.recovery, since, until, RECOVERY_PAGE + 1]);
      return row['QUERY PLAN'];
    });
    // The walk of the endpoint's failed deliveries: the rows it read (kept or filtered away) are the window's, no more.
    let read = 0;
    const walk = (node: any) => {
      if (node['Relation Name'] === 'webhook_deliveries' && node['Index Name'] !== 'webhook_deliveries_event_id_endpoint_id_generation_key') {
        read += node['Actual Rows'] * node['Actual Loops'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      }
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan[0].Plan);
    expect(wholeScans(plan)).toEqual([]);
    expect(read).toBe(failed[0].n);
  });
});

