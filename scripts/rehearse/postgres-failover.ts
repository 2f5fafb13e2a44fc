/**
 * The faults of `--postgres ha`, one after another under the rehearsal's load (docs/scaling.md):
 *   kill -9 of the primary's Patroni and postmaster (a standby promoted); the killed node started again,
 *   rejoining as a standby (pg_rewind); a planned `patronictl switchover` to the
 *   synchronous standby (the only candidate synchronous mode allows); one etcd member
 *   lost, then a second (no majority: Patroni demotes the primary rather than risk two; the API answers
 *   503 with Retry-After) and both back. After each: no acknowledged write lost, by id, through the write
 *   port. Then, if asked, the load's throughput with synchronous replication against asynchronous.
 */
import pg from 'pg';
import type { Stats, Ticket } from './client.js';
import type { LoadBusiness } from './load.js';
import type { PostgresHa } from './postgres-ha.js';
import { sleep, until } from './proc.js';

type StepFn = (what: string, run: () => Promise<{ downMs: number; upMs: number }>) => Promise<void>;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000, query_timeout: 5_000 });
  c.on('error', () => {});
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end().catch(() => {});
  }
}

/** Milliseconds from `since` until a payment posted after it is committed and readable on the primary. */
async function firstPaymentAfter(url: string, since: number): Promise<number> {
  await until('a payment committed on the primary', async () => (await query(url, `select 1 from ledger_transactions where kind = 'payment' and created_at > $1 limit 1`, [new Date(since)])).length > 0, 180_000);
  return Date.now() - since;
}

/** Milliseconds from `since` until a checkout session created after it is readable: the first write of any kind. */
async function firstSessionAfter(url: string, since: number): Promise<number> {
  await until('a session created on the primary', async () => (await query(url, `select 1 from checkout_sessions where created_at > $1 limit 1`, [new Date(since)])).length > 0, 180_000);
  return Date.now() - since;
}

/** Every 2xx the load received, looked for by id: what is not there was acknowledged and lost. */
export async function lostAcknowledged(url: string, businesses: LoadBusiness[]): Promise<{ checked: number; lost: string[]; inDoubt: number }> {
  const lost: string[] = [];
  let checked = 0;
  for (const [table, pick] of [['checkout_sessions', 'sessions'], ['refunds', 'refunds'], ['withdrawals', 'withdrawals']] as const) {
    const told = businesses.flatMap((b) => [...b[pick]]);
    checked += told.length;
    const found = new Set((await query<{ id: string }>(url, `select id::text as id from ${table} where id::text = any($1::text[])`, [told])).map((r) => r.id));
    for (const id of told) if (!found.has(id)) lost.push(`${table} ${id}`);
  }
  // A pay answered with a final status committed it; one answered `processing` (in doubt: the database
  // was gone when the call came to answer) is carried by its workflow, and the final checks see it settle.
  const answered = new Map(businesses.flatMap((b) => [...(b.paid ?? [])]));
  const settled = [...answered].filter(([, status]) => status !== 'processing').map(([id]) => id);
  checked += settled.length;
  const rows = await query<{ id: string; status: string }>(url, `select id::text as id, status from checkout_sessions where id::text = any($1::text[])`, [[...answered.keys()]]);
  let inDoubt = 0;
  for (const r of rows) {
    const said = answered.get(r.id);
    if (said === 'processing') inDoubt += r.status === 'pending' || r.status === 'processing' ? 1 : 0;
    else if (r.status === 'pending' || r.status === 'processing') lost.push(`payment of ${r.id} (answered 200 ${said}, session ${r.status})`);
  }
  return { checked, lost, inDoubt };
}

/** The writes in flight at a fault, once each has its answer: grouped by route and final answer. */
async function inFlightOutcomes(snapshot: Ticket[]): Promise<string> {
  const writes = snapshot.filter((t) => t.what.startsWith('POST'));
  const t0 = Date.now();
  while (writes.some((t) => !t.outcome) && Date.now() - t0 < 130_000) await sleep(500);
  const by = new Map<string, number>();
  for (const t of writes) {
    const route = t.what.replace(/\/[^/]*\d[^/]*(?=\/|$)/g, '/:id');
    const key = `${route} → ${t.outcome ?? 'no answer yet'}`;
    by.set(key, (by.get(key) ?? 0) + 1);
  }
  return `${writes.length} writes in flight${writes.length ? `: ${[...by].map(([k, n]) => `${n}× ${k}`).join('; ')}` : ''}`;
}

export async function rehearseFailover(o: { ha: PostgresHa; businesses: LoadBusiness[]; stats: Stats; step: StepFn; log: (l: string) => void; compareSync: boolean }) {
  const { ha, businesses, stats, log } = o;
  const url = ha.url();
  const lines: string[] = [];
  const problems: string[] = [];
  // A fault that fails is a problem of the run; the faults after it still run.
  const step: StepFn = (what, run) =>
    o.step(what, run).catch((err: Error) => {
      problems.push(`${what}: ${err.message.split('\n')[0]}`);
      log(`${what} FAILED: ${err.message.split('\n')[0]}`);
    });
  const afterEach = async (what: string) => {
    const { checked, lost, inDoubt } = await lostAcknowledged(url, businesses);
    lines.push(`    ${what}: ${checked} acknowledged writes looked for by id, ${lost.length} lost; ${inDoubt} pays answered processing (in doubt) not settled yet`);
    for (const l of lost) problems.push(`${what}: acknowledged and lost: ${l}`);
  };

  let killed = '';
  await step('kill -9 the primary (Patroni, then postmaster)', async () => {
    const k = await ha.killPrimary();
    killed = k.killed;
    const snapshot = [...stats.open];
    const promotedMs = await until('a standby promoted', async () => ![null, killed].includes(await ha.primary()), 120_000);
    const newPrimary = await ha.primary();
    const [sessionMs, payMs] = await Promise.all([firstSessionAfter(url, k.killedAt), firstPaymentAfter(url, k.killedAt)]);
    log(`${killed} killed; ${newPrimary} primary after ${s(promotedMs)}; first payment committed ${s(payMs)} after the kill`);
    lines.push(`  failover:   ${killed} killed; ${newPrimary} promoted ${s(promotedMs)} after; first session created on it ${s(sessionMs)}, first payment committed ${s(payMs)} after the kill`);
    lines.push(`              ${await inFlightOutcomes(snapshot)}`);
    return { downMs: payMs, upMs: promotedMs };
  });
  await afterEach('after the kill');

  await step('the killed node rejoins as a standby', async () => {
    const t0 = Date.now();
    ha.startNode(killed);
    const upMs = await until(`${killed} streaming as a standby`, async () => (await ha.members()).some((m) => m.name === killed && m.role !== 'leader' && (m.state === 'streaming' || m.state === 'running') && m.lag !== undefined), 180_000);
    const m = (await ha.members()).find((x) => x.name === killed);
    lines.push(`  rejoin:     ${killed} back as ${m?.role} (${m?.state}, lag ${String(m?.lag)}) ${s(upMs)} after its Patroni started`);
    return { downMs: 0, upMs: Date.now() - t0 };
  });
  await afterEach('after the rejoin');

  await step('patronictl switchover to the synchronous standby', async () => {
    const t0 = Date.now();
    const before = await ha.primary();
    const target = (await ha.members()).find((m) => m.role === 'sync_standby')?.name;
    if (!target) throw new Error(`no synchronous standby to switch over to: ${JSON.stringify(await ha.members())}`);
    const switching = ha.switchover(target);
    const snapshot = [...stats.open];
    const r = await switching;
    if (!r.ok) problems.push(`patronictl switchover failed: ${r.output}`);
    const upMs = await until(`${target} primary`, async () => (await ha.primary()) === target, 120_000);
    const payMs = await firstPaymentAfter(url, t0);
    lines.push(`  switchover: ${before} → ${target}, primary ${s(upMs)} after the command; first payment ${s(payMs)} after it; ${await inFlightOutcomes(snapshot)}`);
    return { downMs: payMs, upMs };
  });
  await afterEach('after the switchover');

  await step('one etcd member lost (kill -9), writes go on', async () => {
    const t0 = Date.now();
    await ha.stopEtcd('etcd-3');
    await sleep(3_000);
    const payMs = await firstPaymentAfter(url, t0);
    lines.push(`  etcd:       etcd-3 killed; a payment committed ${s(payMs)} after (2 of 3 members are a majority)`);
    return { downMs: 0, upMs: payMs };
  });
  await afterEach('after one etcd member lost');

  await step('etcd majority lost (a 2nd member killed), then both back', async () => {
    const t0 = Date.now();
    const before503 = stats.byStatus.get(503) ?? 0;
    await ha.stopEtcd('etcd-2');
    const demotedMs = await until('the primary demoted (no DCS majority)', async () => (await ha.primary()) === null, 120_000);
    // Held a while with no primary: the load meets the refusal.
    await sleep(5_000);
    const during503 = (stats.byStatus.get(503) ?? 0) - before503;
    const t1 = Date.now();
    ha.startEtcd('etcd-2');
    ha.startEtcd('etcd-3');
    const upMs = await until('a primary again', async () => (await ha.primary()) !== null, 120_000);
    const payMs = await firstPaymentAfter(url, t1);
    lines.push(`  etcd:       majority lost: no primary ${s(demotedMs)} after (Patroni demoted it), ${during503} answers 503 meanwhile; etcd back: primary ${s(upMs)}, a payment ${s(payMs)} after`);
    return { downMs: Date.now() - t0 - payMs, upMs: payMs };
  });
  await afterEach('after the etcd majority came back');

  if (o.compareSync) lines.push(`  sync/async: ${await compareReplication(ha, stats)}`);
  return { lines, problems };
}

/** The load's request rate for a while with synchronous replication, then asynchronous, then back. */
async function compareReplication(ha: PostgresHa, stats: Stats): Promise<string> {
  const windowMs = 20_000;
  const rate = async () => {
    const n0 = stats.requests;
    await sleep(windowMs);
    return ((stats.requests - n0) / (windowMs / 1000)).toFixed(1);
  };
  const edit = async (on: boolean) => {
    const r = await ha.patronictl(['edit-config', '--set', `synchronous_mode=${on}`, '--force']);
    if (!r.ok) throw new Error(`patronictl edit-config failed: ${r.output}`);
  };
  await sleep(3_000);
  const sync = await rate();
  await edit(false);
  await sleep(5_000);
  const asyncRate = await rate();
  await edit(true);
  await sleep(5_000);
  return `${sync} requests/s synchronous, ${asyncRate} requests/s asynchronous (${windowMs / 1000} s each, same load)`;
}
