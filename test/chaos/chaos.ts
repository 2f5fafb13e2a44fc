/**
 * A seeded chaos run (docs/chaos.md): from one seed, a schedule of overlapping faults (schedule.ts) and a
 * load (load.ts) against 2 API processes, 2 workers, PostgreSQL and Temporal as separate processes
 * (cluster.ts); then a heal of bounded length (every fault stopped, everything started again, the work
 * in flight finished) and the invariants checked from outside (checks.ts). The seed fixes the schedule
 * and what the load asks, not the processes' timing: `npm run chaos -- --seed N --minutes M` runs the
 * same schedule again. The seed, the command and the schedule head every report and every failure.
 */
import { addWalletMethod, creditAvailable, testMode } from '../support/seed.js';
import { payBody } from '../support/payments.js';
import { processLogDir } from '../support/stack-processes.js';
import { chaosClients, describeCall, RETRY_FOR_MS, type ChaosClients } from './client.js';
import { answerProblems, chargeProblems, type FaultWindow, ledgerProblems, processorMoveProblems, replayProblems, serverErrors, sessionRows, unsettled, webhookProblems, type Endpoint } from './checks.js';
import { startChaosCluster, type ChaosCluster } from './cluster.js';
import { customerLoop, merchantLoop, type ChaosBusiness, type Flows, type LoadContext } from './load.js';
import { runSchedule } from './faults.js';
import { createRng } from './prng.js';
import { CHECKS, chaosCommand, chaosHeader, counts, withApiLogLines, type ChaosReport, type Check } from './report.js';
import { drawSchedule } from './schedule.js';

export interface ChaosOptions {
  seed: number;
  minutes: number;
  /** Customer loops (each pays, refunds, replays); one merchant loop per business besides. */
  customers?: number;
  /** How long the heal may take: all work settled and every event delivered. */
  healBoundMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BUSINESSES = 2;

async function businesses(cluster: ChaosCluster): Promise<{ list: ChaosBusiness[]; endpoints: Endpoint[] }> {
  const list: ChaosBusiness[] = [];
  const endpoints: Endpoint[] = [];
  const setup = cluster.stack.client(cluster.origins[0]);
  for (let index = 0; index < BUSINESSES; index++) {
    const biz = await cluster.stack.business({ name: `Chaos business ${index + 1}`, rateLimitTier: 'enterprise', rateLimitPerMinute: 1_000_000, rateLimitBurst: 1_000_000 });
    await addWalletMethod(cluster.stack.orm, biz.id);
    await creditAvailable(cluster.stack.orm, testMode(biz.id), 10_000_000);
    const url = cluster.receiver.url();
    const made = await setup.post('/api/webhooks', { url, events: ['*'] }, { key: biz.testKey, accept: [201] });
    const [{ created_at: createdAt }] = await cluster.stack.orm.em
      .getConnection()
      .execute<{ created_at: Date }[]>('select created_at from webhook_endpoints where id = ?', [made.body.data.endpoint.id]);
    endpoints.push({ businessId: biz.id, path: new URL(url).pathname, secret: made.body.data.secret, createdAt });
    list.push({ index, id: biz.id, key: biz.testKey });
  }
  return { list, endpoints };
}

/** Waits until nothing is in flight and every delivery is done, at most `boundMs`. */
async function settle(cluster: ChaosCluster, businessIds: string[], endpoints: Endpoint[], boundMs: number): Promise<boolean> {
  const until = Date.now() + boundMs;
  for (;;) {
    try {
      const left = await unsettled(cluster.stack.orm, businessIds);
      const deliveries = await cluster.stack.orm.em
        .getConnection()
        .execute<{ n: number }[]>(`select count(*)::int as n from webhook_deliveries where business_id in (?) and status in ('pending', 'delivering')`, [businessIds]);
      const undelivered = (await webhookProblems(cluster.stack.orm, endpoints, cluster.receiver.received)).length;
      if (!left.length && !deliveries[0].n && !undelivered) return true;
    } catch {
      // PostgreSQL still coming back: asked again.
    }
    if (Date.now() > until) return false;
    await sleep(2_000);
  }
}

/**
 * The one `processing` docs/decisions.md says may not come true ("A pay whose database went away before it
 * could answer"): told after neither PostgreSQL nor Temporal answered for the call's whole hold, for an
 * update the server never held, so nothing began and the session is `pending`; the hosted page shows the
 * payment form again and the customer pays again. (A `processing` for a pending session is otherwise given
 * only once the update is accepted, which no restart loses.) Done once the faults have stopped, for each
 * such session, and noted; the new call's answer is checked like any other, and so is the session's end
 * against the first `processing`.
 */
async function payAgainWhereLost(cluster: ChaosCluster, clients: ChaosClients, flows: Flows): Promise<string[]> {
  const told = flows.sessions.filter((f) => f.pays.some((c) => c.status === 200 && c.body?.status === 'processing'));
  const rows = await sessionRows(cluster.stack.orm, told.map((f) => f.id));
  const lost = told.filter((f) => rows.get(f.id)?.status === 'pending');
  return Promise.all(
    lost.map(async (flow) => {
      const calls = await clients.send('POST', `/api/checkout/${flow.id}/pay`, { body: payBody(flow.card), api: 0, minWaitMs: 3_000 });
      flow.pays.push(...calls);
      const processing = flow.pays.find((c) => c.status === 200 && c.body?.status === 'processing')!;
      return `session ${flow.id}: told processing (${describeCall(processing)}), still pending after the faults (answered while neither PostgreSQL nor Temporal could say); paid again: ${describeCall(calls[calls.length - 1])}`;
    }),
  );
}

export async function runChaos(opts: ChaosOptions, log: (line: string) => void = () => {}): Promise<ChaosReport> {
  const started = Date.now();
  const rng = createRng(opts.seed);
  const durationMs = opts.minutes * 60_000;
  const schedule = drawSchedule(rng.fork('schedule'), durationMs);
  log(chaosHeader(opts, schedule));
  const cluster = await startChaosCluster(`seed-${opts.seed}-${started}`, log);
  const clients = chaosClients(cluster.origins);
  try {
    const { list, endpoints } = await businesses(cluster);
    const flows: Flows = { sessions: [], refunds: [], withdrawals: [], problems: [] };
    const executed: string[] = [];
    const windows: FaultWindow[] = [];
    const loadStarted = Date.now();
    clients.history.started = loadStarted;
    const ctx: LoadContext = { clients, businesses: list, flows, stopped: () => Date.now() - loadStarted >= durationMs };
    log(`load and faults for ${opts.minutes} min`);
    const faults = runSchedule(cluster, schedule, loadStarted, executed, windows, log);
    const loops = [
      ...Array.from({ length: opts.customers ?? 6 }, (_, i) => customerLoop(ctx, rng.fork(`customer-${i}`))),
      ...list.map((biz) => merchantLoop(ctx, rng.fork(`merchant-${biz.index}`), biz)),
    ].map((l) => l.catch((err) => flows.problems.push(`a load loop threw: ${(err as Error).stack ?? err}`)));
    const ticker = setInterval(() => log(`+${Math.round((Date.now() - loadStarted) / 1000)} s: ${clients.history.calls.length} requests, ${flows.sessions.length} sessions`), 30_000);
    await sleep(durationMs);
    clearInterval(ticker);

    log('heal: no more faults; starting whatever is down, and letting the load finish its flows');
    const healStarted = Date.now();
    await faults.heal();
    let loopsLate: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(loops), new Promise((r) => (loopsLate = setTimeout(r, RETRY_FOR_MS + 60_000)))]);
    clearTimeout(loopsLate);
    const notes = await payAgainWhereLost(cluster, clients, flows);
    const healed = await settle(cluster, list.map((b) => b.id), endpoints, opts.healBoundMs ?? 150_000);
    const healSeconds = (Date.now() - healStarted) / 1000;
    log(`heal ${healed ? 'done' : 'NOT done'} after ${healSeconds.toFixed(0)} s; checking`);

    const orm = cluster.stack.orm;
    const ids = list.map((b) => b.id);
    const sessions = await sessionRows(orm, flows.sessions.map((s) => s.id));
    const problems: Record<Check, string[]> = {
      answers: answerProblems(flows, sessions, windows),
      'server errors': serverErrors(clients.history),
      charges: chargeProblems(flows, sessions),
      'refunds and payouts': await processorMoveProblems(orm, ids),
      settled: await unsettled(orm, ids),
      ledger: await ledgerProblems(orm, cluster.stack.databaseUrl, ids),
      webhooks: await webhookProblems(orm, endpoints, cluster.receiver.received),
      replays: await replayProblems(orm, flows, ids),
      processes: cluster.incidents.filter((i) => i.includes('exited on its own')),
      'API document': clients.history.documentProblems,
    };
    problems.answers = withApiLogLines(problems.answers);
    const report: ChaosReport = {
      seed: opts.seed,
      minutes: opts.minutes,
      command: chaosCommand(opts),
      schedule,
      executed,
      counts: counts(clients.history, flows),
      healSeconds,
      healed,
      notes,
      totalSeconds: (Date.now() - started) / 1000,
      problems,
      logDir: processLogDir(),
      ok: healed && CHECKS.every((c) => problems[c].length === 0),
    };
    // Starts that failed while a dependency was down: not a breach of these invariants, but worth the reader's eye.
    const failedStarts = cluster.incidents.filter((i) => i.includes('could not start'));
    if (failedStarts.length) report.executed.push(`${failedStarts.length} process starts failed and were tried again:`, ...failedStarts.map((l) => `  ${l}`));
    return report;
  } finally {
    clients.close();
    await cluster.stop();
  }
}
