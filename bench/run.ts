/**
 * `npm run bench`: each scenario beside its floor, interleaved in one run on this machine, printed as
 * ratios and written to bench/results/<date>.json and .md. A benchmark, not a test: it asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createBusiness, DEMO_BUSINESS } from '../src/modules/businesses/business.service.js';
import { floorBalanceLock } from './floors/balance-lock.js';
import { fixedRateLatency, jsonClient } from './open-loop.js';
import { quiet, refundsScenario, startReceivers, webhookScenario, withdrawalsScenario } from './scenarios.js';
import { floorWorkflowCompletions, floorWorkflowStarts } from './floors/temporal.js';
import { load } from './load.js';
import { writeResults } from './report.js';
import { freePort } from '../src/dev/free-port.js';
import { peakRssMb, spawnService, startInfrastructure, stopService } from './stack.js';
import { historyCounts } from './history-actions.js';
import { buildWorkflowBundle } from './worker-bundle.js';
import { quantileBound, scrapeScheduleToStart } from './worker-metrics.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
// Arrival rates above what the floors suggest the service can finish, so the figures measure capacity.
const REFUND_RATE = Number(process.env.BENCH_REFUND_RATE ?? 25);
const EVENT_RATE = Number(process.env.BENCH_EVENT_RATE ?? 5);
// Events per second (ten deliveries each) well inside capacity, for the fan-out's own latency.
const CALM_EVENT_RATE = Number(process.env.BENCH_CALM_EVENT_RATE ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
// BENCH_ONLY=a,d runs just those scenarios (with their floors), for working on one target at a time.
const ONLY = new Set((process.env.BENCH_ONLY ?? 'a,b,c,d').split(',').map((s) => s.trim()));
const ONLY_ALL = ['a', 'b', 'c', 'd'].every((s) => ONLY.has(s));
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  // Of an even count, the mean of the middle two (of two rounds: their mean, not the larger one).
  return sorted.length % 2 ? sorted[mid] : Math.round(((sorted[mid - 1] + sorted[mid]) / 2) * 10) / 10;
};

const sessionBody = JSON.stringify({
  description: 'Benchmark order',
  customer: { email: 'bench@example.com' },
  items: [
    { name: 'One', price: 10.5, quantity: 1 },
    { name: 'Two', price: 3.25, quantity: 2 },
    { name: 'Three', price: 99.99, quantity: 3 },
  ],
});

const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
const track = async (child: Promise<ChildProcess>) => {
  children.push(await child);
  return children.at(-1)!;
};

// Stopped on failure too: the dev server and PostgreSQL are not children `process.exit` takes down.
let stopInfrastructure: (() => Promise<void>) | undefined;

async function main() {
  const infra = await startInfrastructure();
  stopInfrastructure = infra.stop;
  const tlsEnv = { TLS_CERT: infra.tls.certFile, TLS_KEY: infra.tls.keyFile };
  const [f1Port, f2Port, writesPort, workPort, apiPort, apiAdminPort, workerAdminPort, workerMetricsPort] = await Promise.all(
    Array.from({ length: 8 }, () => freePort()),
  );
  const appEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: infra.databaseUrl,
    TEMPORAL_ADDRESS: infra.temporalAddress,
    TLS_CERT_FILE: infra.tls.certFile,
    TLS_KEY_FILE: infra.tls.keyFile,
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(infra.root, 'data'),
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // One ring for every process of the run: the API seals workflow inputs the worker must open.
    PAYLOAD_ENCRYPTION_KEYS: `bench-1:${randomBytes(32).toString('base64')}`,
    // The fan-out scenario's receivers run on this machine, under the benchmark's own CA.
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    WEBHOOK_CA_FILE: infra.tls.caFile,
    // Long enough that (d)'s withdrawals are still asleep while it is measured, as with the default ten
    // minutes, short enough that the wait for them to finish before the next measurement stays short.
    WITHDRAWAL_PROCESSING_DELAY: '20s',
    // Every simulated buyer pays from 127.0.0.1: the per-address public limit would shape the results.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '0',
  };
  const f1 = await track(spawnService('bench/floors/bare-koa.ts', { ...tlsEnv, PORT: String(f1Port) }));
  const f2 = await track(spawnService('bench/floors/koa-insert.ts', { ...tlsEnv, PORT: String(f2Port), DATABASE_URL: infra.databaseUrl }));
  // References for (a), not floors: its own statements by hand on raw pg (bench/floors/session-writes.ts).
  const writesOnly = await track(spawnService('bench/floors/session-writes.ts', { ...tlsEnv, PORT: String(writesPort), DATABASE_URL: infra.databaseUrl, REFERENCE: 'writes' }));
  const writesAndWork = await track(spawnService('bench/floors/session-writes.ts', { ...tlsEnv, PORT: String(workPort), DATABASE_URL: infra.databaseUrl, REFERENCE: 'work' }));
  // Ready once its admin port answers, which opens after the worker has bundled its workflows (seconds of
  // CPU that would otherwise land in the first measurement).
  // The prebuilt bundle, as a production worker loads dist/workflow-bundle.js: no webpack in the worker.
  // Its workflow cache is the service's default unless BENCH_MAX_CACHED_WORKFLOWS says otherwise.
  const bundle = await buildWorkflowBundle(infra.root);
  const cacheEnv: Record<string, string> = process.env.BENCH_MAX_CACHED_WORKFLOWS ? { WORKER_MAX_CACHED_WORKFLOWS: process.env.BENCH_MAX_CACHED_WORKFLOWS } : {};
  // BENCH_WORKER_HEAP_MB caps V8's old space in every isolate of the worker (the workflow thread too):
  // with a 4 GB default limit on this host, V8 lets garbage pile up long before it collects.
  if (process.env.BENCH_WORKER_HEAP_MB) cacheEnv.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${process.env.BENCH_WORKER_HEAP_MB}`.trim();
  const workerEnv = { ...appEnv, ...cacheEnv, ADMIN_PORT: String(workerAdminPort), WORKFLOW_BUNDLE_PATH: bundle, TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${workerMetricsPort}` };
  const worker = await track(spawnService('src/main/worker.ts', workerEnv, workerAdminPort));
  const api = await track(spawnService('src/main/api.ts', { ...appEnv, PORT: String(apiPort), ADMIN_PORT: String(apiAdminPort) }, apiPort));
  // A business on the enterprise tier with a budget far above the load, so rate limits do not shape results.
  const benchBusiness = async (name: string) => {
    const { business, keys } = await createBusiness(infra.orm.em.fork(), {
      ...DEMO_BUSINESS,
      name,
      rateLimitTier: 'enterprise',
      rateLimitPerMinute: 10_000_000,
      rateLimitBurst: 10_000_000,
    });
    return { business, key: keys.find((k) => k.mode === 'test')!.secret };
  };
  const { business, key } = await benchBusiness('Bench');
  // (c)'s endpoints subscribe to every event; on a business of their own, so the refunds and withdrawals
  // of the other scenarios do not fan out to them and load each other's measurements.
  const hooks = await benchBusiness('Bench webhooks');
  const post = { method: 'POST' as const, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: sessionBody };

  // One request first: a misconfigured run should fail loudly, not measure errors.
  const probe = await fetchInsecure(`https://127.0.0.1:${apiPort}/api/checkout/sessions`, post, infra.ca);
  if (probe.status !== 201) throw new Error(`session create answered ${probe.status}: ${probe.body}`);

  const client = jsonClient(`https://127.0.0.1:${apiPort}`, infra.ca);
  const receivers = await startReceivers(infra.tls);
  const scenarioRuns: Record<string, unknown>[] = [];

  const samples: Record<string, number[]> = {};
  const add = (name: string, value: number) => (samples[name] ??= []).push(value);
  let p99AtHalf: number[] = [];
  const sessionsUrl = `https://127.0.0.1:${apiPort}/api/checkout/sessions`;
  const groups: Record<string, (round: number) => Promise<void>> = {
    a: async () => {
      add('F1 bare Koa 201 (req/s)', (await load({ url: `https://127.0.0.1:${f1Port}/`, durationSec: SECONDS, connections: 32 })).rps);
      add('F2 Koa + INSERT (req/s)', (await load({ url: `https://127.0.0.1:${f2Port}/`, method: 'POST', durationSec: SECONDS, connections: 32 })).rps);
      for (const [name, port] of [['its writes alone', writesPort], ['key lookup + rate count + writes', workPort]] as const) {
        const reference = await load({ url: `https://127.0.0.1:${port}/`, ...post, durationSec: SECONDS, connections: 32 });
        if (reference.non2xx || reference.errors) throw new Error(`reference answered ${JSON.stringify(reference.statuses)}`);
        add(`(a) reference, raw pg: ${name} (req/s)`, reference.rps);
      }
      const a = await load({ url: sessionsUrl, ...post, durationSec: SECONDS, connections: 32 });
      add('(a) create session, max (req/s)', a.rps);
      if (a.non2xx || a.errors) process.stderr.write(`(a) answered ${JSON.stringify(a.statuses)} with ${a.errors} errors\n`);
      // Work the max run left behind, drained before the next measurement and reported beside the rate.
      // Sessions once started a workflow each after their commit and left seconds of it; now they start
      // none, and the figure shows that nothing is left.
      add('(a) workflow-start backlog after the max run, drained in (ms)', await quiet(infra.orm));
      // The max run's inserts are due an autovacuum, which PostgreSQL starts within a minute of them, and
      // which, landing in the next run, shows in its tail. Vacuumed now, as pgbench does before each run.
      await infra.orm.em.getConnection().execute('vacuum analyze checkout_sessions, session_items');
      const halfRate = Math.max(1, Math.floor(a.rps / 2));
      const half = await fixedRateLatency({ url: sessionsUrl, ...post, ca: infra.ca, rate: halfRate, durationSec: SECONDS });
      if (half.errors || Object.keys(half.statuses).some((code) => code !== '201')) {
        process.stderr.write(`(a) at half rate answered ${JSON.stringify(half.statuses)} with ${half.errors} errors\n`);
      }
      add('(a) create session at half rate, achieved (req/s)', half.rps);
      add('(a) at half rate, open loop: p50 (ms)', half.p50);
      p99AtHalf.push(half.p99);
      process.stderr.write(`(a) at ${halfRate}/s, open loop: p50 ${half.p50} ms, p99 ${half.p99} ms\n`);
      // For comparison only: autocannon at the same rate, which fires each second's quota in a burst.
      await quiet(infra.orm);
      const bursts = await load({ url: sessionsUrl, ...post, durationSec: SECONDS, connections: 64, rate: halfRate });
      add("(a) at half rate in autocannon's per-second bursts: p99 (ms)", bursts.p99);
    },
    // Temporal's floors, for (b) and (c).
    'b,c': async () => {
      add('F3 workflow starts, no worker (/s)', await floorWorkflowStarts(infra.temporalAddress, SECONDS * 1000));
      add('F4 one-activity workflows, 32 in flight (/s)', await floorWorkflowCompletions(infra.temporalAddress, SECONDS * 1000));
    },
    b: async (round) => {
      const b = await refundsScenario(client, infra.orm, key, business.id, REFUND_RATE, REFUND_RATE * SECONDS);
      add('(b) refunds completed end to end (/s)', b.completionsPerSec);
      add('(b) refund state transitions (/s)', b.transitionsPerSec);
      add('(b) refund create → completed p50 (ms)', b.p50Ms);
      add('(b) refund create → completed p99 (ms)', b.p99Ms);
      scenarioRuns.push({ round, b });
    },
    c: async (round) => {
      const c = await webhookScenario(client, infra.orm, hooks.key, hooks.business.id, round === 1 ? receivers.urls : [], EVENT_RATE, EVENT_RATE * SECONDS, receivers.urls.length);
      add('(c) webhook deliveries to 10 receivers (/s)', c.deliveriesPerSec);
      add('(c) commit → first attempt p50 (ms)', c.commitToFirstAttemptP50Ms);
      add('(c) commit → first attempt p99 (ms)', c.commitToFirstAttemptP99Ms);
      // The figures above are taken above capacity, so they include queueing; these, at a rate the
      // service keeps up with, are the path's own latency.
      const calm = await webhookScenario(client, infra.orm, hooks.key, hooks.business.id, [], CALM_EVENT_RATE, CALM_EVENT_RATE * SECONDS, receivers.urls.length);
      add(`(c) commit → first attempt at ${CALM_EVENT_RATE * 10} deliveries/s, p50 (ms)`, calm.commitToFirstAttemptP50Ms);
      add(`(c) commit → first attempt at ${CALM_EVENT_RATE * 10} deliveries/s, p99 (ms)`, calm.commitToFirstAttemptP99Ms);
      scenarioRuns.push({ round, c, calm });
    },
    d: async (round) => {
      add('F6 balance lock txn, 1 client (/s)', await floorBalanceLock(infra.databaseUrl, 1, SECONDS * 1000));
      add('F6 balance lock txn, 16 clients (/s)', await floorBalanceLock(infra.databaseUrl, 16, SECONDS * 1000));
      const d = await withdrawalsScenario(`https://127.0.0.1:${apiPort}`, infra.orm, key, business.id, SECONDS);
      add('(d) withdrawals, 16 clients on one business (/s)', d.withdrawalsPerSec);
      add('(d) overdrafts', d.overdrafts);
      scenarioRuns.push({ round, d });
    },
  };
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round}/${ROUNDS}\n`);
    for (const [names, run] of Object.entries(groups)) {
      if (!names.split(',').some((n) => ONLY.has(n))) continue;
      // Each measurement starts on a quiet service: the work the previous one left has finished.
      await quiet(infra.orm);
      await run(round);
    }
  }
  await receivers.close();
  const figures = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  const ratioA = figures['(a) create session, max (req/s)'] / figures['F2 Koa + INSERT (req/s)'];
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    conditions: {
      seconds: SECONDS,
      rounds: ROUNDS,
      temporalDevServer: ['temporal', ...infra.temporalArgs].join(' '),
      postgres: infra.postgresSettings,
      loadTool:
        'autocannon 9 for max throughput (32 connections); (a) at half rate: evenly spaced requests (bench/open-loop.ts), latency from each one\'s due time; autocannon overallRate over 64 connections beside it for comparison',
      withdrawalProcessingDelay: appEnv.WITHDRAWAL_PROCESSING_DELAY,
      betweenMeasurements:
        'waits until no outbox row, refund, withdrawal or delivery is in flight; after (a) at max, vacuum analyze of the session tables',
    },
    figures,
    targets: [
      { scenario: '(a) create session max throughput', ratio: ratioA, target: '≥ 0.5 × F2', met: ratioA >= 0.5 },
      ratioTarget('(b) refund state transitions per second', figures['(b) refund state transitions (/s)'], figures['F4 one-activity workflows, 32 in flight (/s)'], 0.6, 'F4'),
      ratioTarget('(c) webhook deliveries per second', figures['(c) webhook deliveries to 10 receivers (/s)'], figures['F4 one-activity workflows, 32 in flight (/s)'], 0.7, 'F4'),
      {
        ...ratioTarget('(d) withdrawals per second, 16 clients', figures['(d) withdrawals, 16 clients on one business (/s)'], figures['F6 balance lock txn, 16 clients (/s)'], 0.3, 'F6 at 16 clients'),
        met: figures['(d) withdrawals, 16 clients on one business (/s)'] >= 0.3 * figures['F6 balance lock txn, 16 clients (/s)'] && figures['(d) overdrafts'] === 0,
      },
      {
        scenario: '(a) p99 at half the max rate, open loop (ms)',
        value: median(p99AtHalf),
        target: '≤ 25 ms',
        met: figures['(a) create session at half rate, achieved (req/s)'] > 0 && median(p99AtHalf) <= 25,
      },
    ].filter((t) => Number.isFinite(t.ratio ?? t.value)), // BENCH_ONLY leaves some out
    // How close to F2 (a)'s own statements get with nothing else in the way: where its target's headroom is.
    references: Object.entries(figures)
      .filter(([name]) => name.startsWith('(a) reference'))
      .map(([name, value]) => ({ name, ratio: value / figures['F2 Koa + INSERT (req/s)'] })),
    peakRssMb: { api: peakRssMb(api.pid), worker: peakRssMb(worker.pid) },
    workerCache: `${process.env.BENCH_MAX_CACHED_WORKFLOWS ?? 'service default (src/config.ts)'}${process.env.BENCH_WORKER_HEAP_MB ? `, --max-old-space-size=${process.env.BENCH_WORKER_HEAP_MB}` : ''}${process.env.MALLOC_ARENA_MAX ? `, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : ''}`,
    // Over the whole run, every scenario's load included: Prometheus buckets, so upper bounds.
    workflowTaskScheduleToStart: await scrapeScheduleToStart(workerAdminPort).then(
      (h) => h && { count: h.count, meanMs: h.count ? Math.round(h.sumMs / h.count) : 0, p50AtMostMs: quantileBound(h, 0.5), p99AtMostMs: quantileBound(h, 0.99), buckets: h.buckets },
      () => null,
    ),
    // Per business operation, from the recorded histories the replay tests keep (bench/history-actions.ts).
    historyCounts: historyCounts(),
    scenarioRuns,
  };
  // Each service shuts down on its own (and writes its BENCH_CPU_PROF profile) before its servers go.
  await Promise.all([api, worker, f1, f2, writesOnly, writesAndWork].map((child) => stopService(child)));
  await infra.stop();
  writeResults(results, ONLY_ALL ? '' : `-only-${[...ONLY].join('')}`);
}

function ratioTarget(scenario: string, value: number, floor: number, goal: number, floorName: string) {
  // A scenario BENCH_ONLY left out has no figures: NaN, and the target is not reported.
  const ratio = value === undefined || floor === undefined ? NaN : floor > 0 ? value / floor : 0;
  return { scenario, ratio, target: `≥ ${goal} × ${floorName}`, met: ratio >= goal };
}

async function fetchInsecure(url: string, opts: { method: string; headers: Record<string, string>; body: string }, ca: Buffer) {
  const { request } = await import('node:https');
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: opts.method, headers: opts.headers, ca, servername: 'localhost' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}


main().catch(async (err) => {
  process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
  children.forEach((child) => child.kill('SIGKILL'));
  await stopInfrastructure?.().catch(() => {});
  process.exit(1);
});
