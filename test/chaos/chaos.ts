/**
 * A seeded chaos run (docs/chaos.md): from one seed, a schedule of overlapping faults (schedule.ts) and a
 * load (load.ts) against 2 API processes, 2 workers, PostgreSQL and Temporal as separate processes
 * (cluster.ts); then a heal of bounded length (every fault stopped, everything started again, the work
 * in flight finished) and the invariants checked from outside (checks.ts). The seed fixes the schedule
 * and what the load asks, not the processes' timing: `npm run chaos -- --seed N --minutes M` runs the
 * same schedule again. The seed, the command and the schedule head every report and every failure.
 */
import { addWalletMethod, creditAvailable, testMode } from '../support/seed.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { payBody } from '../support/payments.js';
import { processLogDir } from '../support/stack-processes.js';
import { chaosClients, describeCall, RETRY_FOR_MS, type ChaosClients, type History } from './client.js';
import { answerProblems, chargeProblems, type FaultWindow, ledgerProblems, processorMoveProblems, replayProblems, serverErrors, sessionRows, unsettled, webhookProblems, type Endpoint } from './checks.js';
import { startChaosCluster, type ChaosCluster } from './cluster.js';
import { customerLoop, merchantLoop, type ChaosBusiness, type Flows, type LoadContext } from './load.js';
import { createRng } from './prng.js';
import { describeFault, drawSchedule, formatSchedule, TARGETS, type PlannedFault } from './schedule.js';

export interface ChaosOptions {
  seed: number;
  minutes: number;
  /** Customer loops (each pays, refunds, replays); one merchant loop per business besides. */
  customers?: number;
  /** How long the heal may take: all work settled and every event delivered. */
  healBoundMs?: number;
}

export const CHECKS = ['answers', 'server errors', 'charges', 'refunds and payouts', 'settled', 'ledger', 'webhooks', 'replays', 'processes', 'API document'] as const;
export type Check = (typeof CHECKS)[number];

export interface ChaosReport {
  seed: number;
  minutes: number;
  command: string;
  schedule: PlannedFault[];
  /** What was done, when: each fault as it happened (or why it was skipped). */
  executed: string[];
  counts: { sessions: number; pays: number; refunds: number; withdrawals: number; requests: number; statuses: Record<string, number> };
  healSeconds: number;
  healed: boolean;
  /** What the run saw that breaks no invariant but is worth a reader's eye (a lost admitted update, paid again). */
  notes: string[];
  totalSeconds: number;
  problems: Record<Check, string[]>;
  logDir: string;
  ok: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BUSINESSES = 2;

export const chaosCommand = (o: Pick<ChaosOptions, 'seed' | 'minutes'>) => `npm run chaos -- --seed ${o.seed} --minutes ${o.minutes}`;

/** The head of every report and failure: the seed, how to run it again, and its schedule. */
export function chaosHeader(o: Pick<ChaosOptions, 'seed' | 'minutes'>, schedule = drawSchedule(createRng(o.seed).fork('schedule'), o.minutes * 60_000)): string {
  return `chaos seed ${o.seed}, ${o.minutes} min (run it again: ${chaosCommand(o)}); ${schedule.length} faults:\n${formatSchedule(schedule)}`;
}

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

/** Runs the schedule against the cluster; resolves once every fault it began has been healed. */
function runSchedule(cluster: ChaosCluster, schedule: PlannedFault[], started: number, executed: string[], windows: FaultWindow[], log: (l: string) => void) {
  const busy = new Set<string>();
  const tasks: Promise<void>[] = [];
  const stamp = () => `+${((Date.now() - started) / 1000).toFixed(1)} s`;
  const timers = schedule.map((f) =>
    setTimeout(() => {
      if (busy.has(f.target) || cluster.isDown(f.target)) {
        executed.push(`${stamp()} skipped (${f.target} still starting again): ${describeFault(f)}`);
        return;
      }
      busy.add(f.target);
      tasks.push(
        (async () => {
          const line = `${stamp()} ${describeFault(f)}`;
          const window: FaultWindow = { from: Date.now() - started, to: null, text: describeFault(f) };
          windows.push(window);
          try {
            await cluster.down(f.target, f.kind);
            await sleep(f.downMs);
            await cluster.up(f.target);
            window.to = Date.now() - started;
            executed.push(`${line}: up again at ${stamp()}`);
          } catch (err) {
            executed.push(`${line}: FAILED ${(err as Error).message.split('\n')[0]}`);
          } finally {
            busy.delete(f.target);
            log(executed[executed.length - 1]);
          }
        })(),
      );
    }, f.at),
  );
  return {
    /** No more faults; waits for those under way, then starts whatever is still down. */
    async heal() {
      timers.forEach(clearTimeout);
      await Promise.all(tasks);
      for (const target of TARGETS) {
        if (!cluster.isDown(target)) continue;
        await cluster.up(target);
        executed.push(`${stamp()} heal: ${target} started again`);
      }
    },
  };
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
 * The customer docs/decisions.md describes ("An admitted update lost with a restart"): told `processing`
 * while the server held the pay's update only in memory, a Temporal restart lost it, nothing began and the
 * session is `pending`; the hosted page shows the payment form again and the customer pays again. Done
 * once the faults have stopped, for each such session, and noted; the new call's answer is checked like
 * any other, and so is the session's end against the first `processing`.
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
      return `session ${flow.id}: told processing (${describeCall(processing)}), still pending after the faults (an admitted update lost with a Temporal restart); paid again: ${describeCall(calls[calls.length - 1])}`;
    }),
  );
}

/**
 * Each 503's log line from its API process (found by its request id in the processes' log files): the
 * error that made the answer, beside the breach it belongs to.
 */
function withApiLogLines(problems: string[]): string[] {
  if (!problems.length) return problems;
  const dir = processLogDir();
  const logs = readdirSync(dir)
    .filter((f) => f.startsWith('chaos-api-'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .flat();
  return problems.map((p) => {
    const ids = [...p.matchAll(/-> 503 [^\n]*\[(req_[0-9a-f]+)\]/g)].map((m) => m[1]);
    const lines = ids.flatMap((id) => logs.filter((l) => l.includes(id) && /"level":(40|50)|err/i.test(l)).slice(0, 1));
    return lines.length ? `${p}${lines.map((l) => `\n      api log: ${l.slice(0, 600)}`).join('')}` : p;
  });
}

function counts(history: History, flows: Flows): ChaosReport['counts'] {
  const statuses: Record<string, number> = {};
  for (const c of history.calls) statuses[c.status || 'none'] = (statuses[c.status || 'none'] ?? 0) + 1;
  return {
    sessions: flows.sessions.length,
    pays: flows.sessions.reduce((n, s) => n + s.pays.length, 0),
    refunds: flows.refunds.length,
    withdrawals: flows.withdrawals.length,
    requests: history.calls.length,
    statuses,
  };
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

export function formatReport(r: ChaosReport): string {
  const statuses = Object.entries(r.counts.statuses).map(([s, n]) => `${s}: ${n}`).join(', ');
  const lines = [
    `Chaos ${r.ok ? 'PASSED' : 'FAILED'}: ${chaosHeader(r, r.schedule)}`,
    'What happened:',
    ...r.executed.map((l) => `  ${l}`),
    `Load: ${r.counts.sessions} sessions (${r.counts.pays} pay calls), ${r.counts.refunds} refunds, ${r.counts.withdrawals} withdrawals; ${r.counts.requests} requests (${statuses})`,
    `Heal: ${r.healed ? 'settled' : 'NOT settled'} in ${r.healSeconds.toFixed(0)} s; ${r.totalSeconds.toFixed(0)} s in all. Process logs: ${r.logDir}`,
    ...(r.notes.length ? ['Notes:', ...r.notes.map((n) => `  - ${n}`)] : []),
    ...CHECKS.map((c) => `  ${c.padEnd(20)} ${r.problems[c].length ? `${r.problems[c].length} BREACHES` : 'held'}`),
  ];
  for (const c of CHECKS) {
    if (!r.problems[c].length) continue;
    lines.push(`${c}:`, ...r.problems[c].slice(0, 30).map((p) => `  - ${p}`));
    if (r.problems[c].length > 30) lines.push(`  … and ${r.problems[c].length - 30} more`);
  }
  return lines.join('\n');
}
