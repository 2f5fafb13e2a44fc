/** Scenarios (b) refunds, (c) webhook fan-out and (d) concurrent withdrawals, measured end to end. */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { newId } from '../src/domain/ids.js';
import { addWithdrawalMethod } from '../src/modules/withdrawals/index.js';
import { recordEvent } from '../src/modules/events/index.js';
import { verifyLedger, lockBalance, postTransaction, readBalance } from '../src/modules/ledger/index.js';
import { load } from './load.js';
import { openLoop, percentile, type JsonClient } from './open-loop.js';

const sql = <T>(orm: MikroORM, query: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(query, params);
/** Raw queries return timestamps as text; read them as epoch milliseconds. */
const ms = (value: Date | string | null) => (value === null ? 0 : new Date(value).getTime());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(read: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for the scenario to finish');
    await sleep(200);
  }
}

/** Money for a scenario to spend, posted like every move: balanced, under the balance lock. */
async function credit(orm: MikroORM, owner: { businessId: string; livemode: boolean }, cents: number) {
  await orm.em.fork().transactional(async (tx) => {
    const balance = await lockBalance(tx, owner);
    postTransaction(tx, balance, {
      kind: 'bench.credit',
      referenceId: newId('ltx'),
      lines: [
        { account: 'processor_clearing', amount: -cents },
        { account: 'available', amount: cents },
      ],
    });
  });
}

const card = { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' };

/** (b) Refunds of paid sessions, created at a fixed rate, until every one is `completed`. */
export async function refundsScenario(
  api: JsonClient,
  orm: MikroORM,
  key: string,
  businessId: string,
  rate: number,
  count: number,
  hooks: { beforeRefunds?: () => void } = {},
) {
  // A refund returns the fee too, which the payment never credited to the business: fund that difference.
  await credit(orm, { businessId, livemode: false }, count * 1000);
  const sessions: string[] = [];
  await openLoop(20, count, async () => {
    const created = await api.post('/api/checkout/sessions', { description: 'bench', customer: { email: 'b@x.co' }, items: [{ name: 'x', price: 20, quantity: 1 }] }, key);
    const id = created.body.data.id;
    const paid = await api.post(`/api/checkout/${id}/pay`, { card, name: 'Bench' });
    // Under load a payment may outlast the pay call's bounded wait; its workflow still finishes it.
    const status = paid.body?.data?.status === 'processing'
      ? await until(async () => {
          const read = await api.get(`/api/checkout/sessions/${id}`, key);
          return ['pending', 'processing'].includes(read.body.data.status) ? null : (read.body.data.status as string);
        }, 60_000)
      : paid.body?.data?.status;
    if (status !== 'completed') throw new Error(`payment for the refund scenario ended ${status}: ${JSON.stringify(paid.body)}`);
    sessions.push(id);
  });
  await quiet(orm); // the payments' own work (their events, their workflows' ends) is not the refunds'
  hooks.beforeRefunds?.();
  const answers = await openLoop(rate, sessions.length, (i) => api.post('/api/refunds', { checkoutSessionId: sessions[i] }, key));
  const ids = answers.filter((a) => a.status === 201).map((a) => a.body.data.id as string);
  const rows = await until(async () => {
    const r = await sql<{ created_at: Date; completed_at: Date | null }>(orm, `select created_at, completed_at from refunds where id in (?)`, [ids]);
    return r.every((x) => x.completed_at) ? r : null;
  }, 300_000);
  const first = Math.min(...rows.map((r) => ms(r.created_at)));
  const last = Math.max(...rows.map((r) => ms(r.completed_at)));
  const latencies = rows.map((r) => ms(r.completed_at) - ms(r.created_at));
  const completionsPerSec = (rows.length * 1000) / Math.max(1, last - first);
  return {
    refunds: rows.length,
    refused: answers.length - ids.length,
    completionsPerSec: Math.round(completionsPerSec * 10) / 10,
    // pending → processing → completed: two transitions driven by the workflow per refund.
    transitionsPerSec: Math.round(completionsPerSec * 2 * 10) / 10,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

/**
 * Ten local HTTPS receivers answering 200, trusted through the benchmark's CA (WEBHOOK_CA_FILE).
 * `onPost` hears each POST's delivery id and the moment its headers arrived (the first-attempt probe).
 */
export async function startReceivers(tls: { certFile: string; keyFile: string }, count = 10, onPost?: (deliveryId: string, atMs: number) => void) {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<https.Server>((resolve) => {
        const server = https.createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, (req, res) => {
          onPost?.(String(req.headers['x-webhook-delivery-id']), Date.now());
          req.resume();
          req.on('end', () => res.writeHead(200).end('ok'));
        });
        server.listen(0, '127.0.0.1', () => resolve(server));
      }),
    ),
  );
  return {
    urls: servers.map((s) => `https://localhost:${(s.address() as { port: number }).port}/hook`),
    close: () => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))),
  };
}

/**
 * (c) Events committed at a fixed rate, each fanned out to every endpoint, until all are delivered. The
 * events are written the way activities write them (no fast path): the worker's relay, woken by the
 * outbox's NOTIFY, fans them out, so commit → first attempt covers the whole production path.
 */
export async function webhookScenario(
  api: JsonClient,
  orm: MikroORM,
  key: string,
  businessId: string,
  newUrls: string[],
  rate: number,
  count: number,
  endpoints: number,
) {
  for (const url of newUrls) {
    const res = await api.post('/api/webhooks', { url, events: ['*'] }, key);
    if (res.status !== 201) throw new Error(`webhook endpoint create answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  const eventIds: string[] = [];
  await openLoop(rate, count, async () => {
    const em = orm.em.fork();
    const event = recordEvent(em, { businessId, livemode: false }, 'refund.created', { refundId: newId('ref'), amount: 100 });
    await em.flush();
    eventIds.push(event.id);
  });
  const expected = eventIds.length * endpoints;
  const rows = await until(async () => {
    const r = await sql<{ event_at: Date; fanned_at: Date; first_at: Date | null; done_at: Date | null; status: string }>(
      orm,
      `select e.created_at as event_at, d.created_at as fanned_at, min(a.attempted_at) as first_at, d.completed_at as done_at, d.status
       from webhook_deliveries d join events e on e.id = d.event_id left join webhook_attempts a on a.delivery_id = d.id
       where d.event_id in (?) group by d.id, e.created_at`,
      [eventIds],
    );
    return r.length === expected && r.every((x) => x.status === 'succeeded') ? r : null;
  }, 300_000);
  const first = Math.min(...rows.map((r) => ms(r.event_at)));
  const last = Math.max(...rows.map((r) => ms(r.done_at ?? r.first_at)));
  // A delivery never attempted has no first attempt to time (`ms` reads its null as 0).
  const toFirstAttempt = rows.flatMap((r) => (r.first_at === null ? [] : [ms(r.first_at) - ms(r.event_at)]));
  return {
    firstEventAt: first,
    deliveries: rows.length,
    /** Deliveries the events asked for, and those whose first attempt was timed: the percentiles' sample. */
    offered: count * endpoints,
    timed: toFirstAttempt.length,
    deliveriesPerSec: Math.round(((rows.length * 1000) / Math.max(1, last - first)) * 10) / 10,
    commitToFirstAttemptP50Ms: percentile(toFirstAttempt, 50),
    commitToFirstAttemptP99Ms: percentile(toFirstAttempt, 99),
    // The two halves of that path: the relay's fan-out (NOTIFY, claim, the deliveries' insert), then the
    // delivery workflows' start, first workflow task and attempt up to its POST.
    commitToFanOutP50Ms: percentile(rows.map((r) => ms(r.fanned_at) - ms(r.event_at)), 50),
    fanOutToFirstAttemptP50Ms: percentile(rows.flatMap((r) => (r.first_at === null ? [] : [ms(r.first_at) - ms(r.fanned_at)])), 50),
  };
}

/**
 * Waits until no webhook delivery workflow is running and returns when that was: a worker's fan-out sends
 * each first attempt itself, so a delivery can be done before its workflow has run its first task.
 */
export async function deliveryWorkflowsClosed(temporal: Client): Promise<number> {
  const running = `WorkflowType = 'webhookDeliveryWorkflow' AND ExecutionStatus = 'Running'`;
  await until(async () => ((await temporal.workflow.count(running)).count === 0 ? true : null), 300_000);
  return Date.now();
}

/** Waits until no outbox row, refund, withdrawal or webhook delivery is still in flight; returns how long that took (ms). */
export async function quiet(orm: MikroORM, timeoutMs = 900_000): Promise<number> {
  const started = Date.now();
  await until(async () => {
    const [row] = await sql<{ busy: string }>(
      orm,
      `select ((select count(*) from outbox where dispatched_at is null)
        + (select count(*) from refunds where status in ('pending', 'processing'))
        + (select count(*) from withdrawals where status in ('pending', 'processing'))
        + (select count(*) from webhook_deliveries where status in ('pending', 'delivering')))::text as busy`,
    );
    return row.busy === '0' ? true : null;
  }, timeoutMs);
  return Date.now() - started;
}

/** (d) 16 clients withdrawing one cent each from one business, flat out; then the ledger is checked. */
export async function withdrawalsScenario(
  origin: string,
  orm: MikroORM,
  key: string,
  businessId: string,
  seconds: number,
  hooks: { beforeLoad?: () => void; afterLoad?: () => void } = {},
) {
  const owner = { businessId, livemode: false };
  await addWithdrawalMethod(orm.em.fork(), businessId, 'wallet', { walletEmail: 'bench@payouts.test' });
  await credit(orm, owner, 1_000_000);
  const countRows = async () =>
    Number((await sql<{ count: string }>(orm, `select count(*)::text as count from withdrawals where business_id = ?`, [businessId]))[0].count);
  const before = (await readBalance(orm.em.fork(), owner))!;
  const rowsBefore = await countRows();
  hooks.beforeLoad?.();
  const result = await load({
    url: `${origin}/api/withdrawals`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 0.01, destinationType: 'wallet', destinationDetails: { walletEmail: 'bench@payouts.test' } }),
    durationSec: seconds,
    connections: 16,
  });
  hooks.afterLoad?.();
  await sleep(2000); // let requests cut off at the end of the run finish before reading the outcome
  const after = (await readBalance(orm.em.fork(), owner))!;
  // Rounds share the business, so only this round's withdrawals are compared with the money it moved.
  const created = (await countRows()) - rowsBefore;
  const moved = before.available - after.available;
  const report = await verifyLedger(orm.em.fork());
  return {
    withdrawalsPerSec: result.rps,
    statuses: result.statuses,
    withdrawals: created,
    overdrafts: after.available < 0 || moved !== created || !report.ok ? 1 : 0,
    ledgerProblems: report.problems.slice(0, 5),
  };
}
