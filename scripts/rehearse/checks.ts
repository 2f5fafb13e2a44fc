/**
 * After the load: nothing lost, nothing doubled. Read from the app's database once the work in flight
 * has settled, and from the receiver: every payment, refund, withdrawal and webhook delivery reached a
 * final state, each exactly once, with exactly the ledger postings its status calls for; each object the
 * clients were told was created exists once (and nothing else was created); and the operator's own
 * `ledger verify` (src/modules/ledger/ledger-verify.service.ts, run as the admin command) is clean.
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import type { LoadBusiness } from './load.js';
import { REPO } from './temporal.js';

export interface Checks {
  settleSeconds: number;
  counts: Record<string, Record<string, number>>;
  problems: string[];
  ledgerVerify: { exitCode: number | null; output: string };
}

const POSTINGS: Record<string, Record<string, string[]>> = {
  checkout_sessions: { completed: ['payment'], refunded: ['payment'], failed: [], cancelled: [] },
  refunds: { completed: ['refund.created', 'refund.completed'], failed: ['refund.created', 'refund.failed'] },
  withdrawals: {
    completed: ['withdrawal.created', 'withdrawal.paid'],
    failed: ['withdrawal.created', 'withdrawal.failed'],
    cancelled: ['withdrawal.created', 'withdrawal.cancelled'],
  },
};
const IN_FLIGHT = `
  select 'withdrawals ' || status as what, count(*)::int as n from withdrawals where status in ('pending', 'processing') group by status
  union all select 'refunds ' || status, count(*)::int from refunds where status in ('pending', 'processing') group by status
  union all select 'sessions ' || status, count(*)::int from checkout_sessions where status in ('pending', 'processing') group by status
  union all select 'deliveries ' || status, count(*)::int from webhook_deliveries where status in ('pending', 'delivering') group by status
  union all select 'outbox rows not dispatched', count(*)::int from outbox where dispatched_at is null having count(*) > 0`;

/**
 * `received`: what the receiver got, read after the work in flight settled (deliveries keep arriving until then).
 * `resent`: whether an event posted more than once passes. Delivery is at least once (docs/decisions.md,
 * "Webhook POST cut off by a worker crash"): a primary demoted between the receiver's 200 and the commit of
 * the delivery's outcome leaves it to be sent again, and so does a worker SIGKILLed or a database stopped
 * there (the containers rehearsal's faults), so those two count such posts (in `webhook_posts`) where the others, whose faults cannot
 * cut that commit off, still demand exactly once.
 */
export async function checkOutcome(
  databaseUrl: string,
  businesses: LoadBusiness[],
  received: () => { path: string; eventId: string }[],
  opts: { resent?: boolean } = {},
): Promise<Checks> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const problems: string[] = [];
  try {
    const started = Date.now();
    let left: { what: string; n: number }[] = [];
    while (Date.now() - started < 180_000) {
      left = (await db.query(IN_FLIGHT)).rows;
      if (!left.length) break;
      if (Math.round((Date.now() - started) / 1000) % 10 === 0) process.stderr.write(`rehearse: in flight: ${left.map((l) => `${l.n} ${l.what}`).join(', ')}\n`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const settleSeconds = (Date.now() - started) / 1000;
    for (const l of left) problems.push(`still in flight after ${settleSeconds.toFixed(0)} s: ${l.n} ${l.what}`);

    const counts: Checks['counts'] = {};
    for (const [table, expected] of Object.entries(POSTINGS)) {
      const rows = (
        await db.query(
          `select r.id, r.status, coalesce(array_agg(t.kind order by t.created_at, t.kind) filter (where t.id is not null), '{}') as kinds
           from ${table} r left join ledger_transactions t on t.reference_id = r.id::text and t.kind <> 'reserve.release'
           group by r.id, r.status`,
        )
      ).rows as { id: string; status: string; kinds: string[] }[];
      counts[table] = {};
      for (const r of rows) {
        counts[table][r.status] = (counts[table][r.status] ?? 0) + 1;
        const want = expected[r.status];
        if (!want) problems.push(`${table} ${r.id} ended ${r.status}, not a final state`);
        else if (JSON.stringify(r.kinds) !== JSON.stringify(want)) problems.push(`${table} ${r.id} is ${r.status} with postings ${JSON.stringify(r.kinds)}, not ${JSON.stringify(want)}`);
      }
    }

    // What the clients were told was created, against what exists: one row per created answer.
    for (const [table, pick] of [['checkout_sessions', 'sessions'], ['refunds', 'refunds'], ['withdrawals', 'withdrawals']] as const) {
      const told = new Set(businesses.flatMap((b) => [...b[pick]]));
      const ids = new Set<string>((await db.query(`select id from ${table}`)).rows.map((r: { id: string }) => r.id));
      const unknown = [...ids].filter((id) => !told.has(id));
      const missing = [...told].filter((id) => !ids.has(id));
      if (unknown.length) problems.push(`${unknown.length} ${table} exist that no client was told of (a request doubled): ${unknown.slice(0, 5).join(', ')}`);
      if (missing.length) problems.push(`${missing.length} ${table} answered as created are missing: ${missing.slice(0, 5).join(', ')}`);
    }

    // Webhooks: one delivery per event and endpoint, each succeeded, each posted to its receiver once.
    const deliveries = (await db.query(`select d.id, d.event_id, d.status, e.url from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id`)).rows as {
      id: string;
      event_id: string;
      status: string;
      url: string;
    }[];
    counts.webhook_deliveries = {};
    const posts = new Map<string, number>();
    for (const r of received()) posts.set(`${r.path} ${r.eventId}`, (posts.get(`${r.path} ${r.eventId}`) ?? 0) + 1);
    for (const d of deliveries) {
      counts.webhook_deliveries[d.status] = (counts.webhook_deliveries[d.status] ?? 0) + 1;
      if (d.status !== 'succeeded') problems.push(`webhook delivery ${d.id} ended ${d.status} (its receiver always answers 200)`);
      const n = posts.get(`${new URL(d.url).pathname} ${d.event_id}`) ?? 0;
      if (n > 1 && opts.resent) counts.webhook_posts = { ...counts.webhook_posts, 'sent again (at least once)': (counts.webhook_posts?.['sent again (at least once)'] ?? 0) + 1 };
      else if (n !== 1) problems.push(`event ${d.event_id} was posted ${n} times to ${d.url}`);
    }
    const [{ n: eventsWithout }] = (
      await db.query(`select count(*)::int as n from events ev where not exists (select 1 from webhook_deliveries d where d.event_id = ev.id)`)
    ).rows;
    if (eventsWithout) problems.push(`${eventsWithout} events have no webhook delivery (every business subscribes to all events)`);
    counts.events = { all: Number((await db.query('select count(*)::int as n from events')).rows[0].n) };

    const verify = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'ledger', 'verify'], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    const ledgerVerify = { exitCode: verify.status, output: `${verify.stdout}${verify.stderr}`.trim() };
    if (verify.status !== 0) problems.push(`ledger verify exited ${verify.status}: ${ledgerVerify.output}`);
    return { settleSeconds, counts, problems, ledgerVerify };
  } finally {
    await db.end();
  }
}
