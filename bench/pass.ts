/**
 * One pass of the benchmark against one Temporal server: the API and `workers` workers from the
 * production build (plain node, no TypeScript loader), the scenarios `groups` names, `rounds` times,
 * interleaved with their floors. Returns every sample, the peaks and the worker's metrics.
 */
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { createBusiness, DEMO_BUSINESS } from '../src/modules/businesses/business.service.js';
import { freePort } from '../src/dev/free-port.js';
import { floorBalanceLock } from './floors/balance-lock.js';
import { floorWorkflowCompletions, floorWorkflowStarts } from './floors/temporal.js';
import { cpuByGroup, perOperation, type CpuGroups } from './cpu.js';
import { load } from './load.js';
import { fixedRateLatency, jsonClient } from './open-loop.js';
import { deliveryWorkflowsClosed, quiet, refundsScenario, webhookScenario, withdrawalsScenario } from './scenarios.js';
import { peakRssMb, resetPeakRss, spawnService, stopService } from './stack.js';
import { quantileBound, scrapeScheduleToStart } from './worker-metrics.js';

/** The API's V8 settings in scripts/run.sh and docker-compose.yml. */
export const API_NODE_OPTIONS = '--max-old-space-size=512 --max-semi-space-size=16';

export interface PassOptions {
  name: string;
  temporalAddress: string;
  dist: string;
  appEnv: Record<string, string>;
  workers: number;
  /** Which groups to run: 'a', 'b,c,d' (Temporal's floors), 'b', 'c', 'd'. */
  groups: string[];
  rounds: number;
  seconds: number;
  orm: MikroORM;
  databaseUrl: string;
  ca: Buffer;
  receivers: { urls: string[] };
  /** Everything (b) and (c) need from run.ts: rates and the session body. */
  rates: { refund: number; event: number; calmEvent: number };
  sessionBody: string;
  /** References for (a), measured beside it (the floors' ports). */
  references: { f1Port: number; f2Port: number; writesPort: number; workPort: number; workPid?: number };
  track: (child: Promise<ChildProcess>) => Promise<ChildProcess>;
}

/** A worker from the production build, with the memory settings its start script gives it (scripts/run.sh worker). */
export async function spawnWorker(o: Pick<PassOptions, 'dist' | 'appEnv' | 'temporalAddress' | 'track'>): Promise<{ child: ChildProcess; adminPort: number }> {
  const [adminPort, metricsPort] = await Promise.all([freePort(), freePort()]);
  const env = {
    ...o.appEnv,
    // The worker's own start script sets it too (scripts/run.sh worker, docker-compose.yml).
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    ...(process.env.BENCH_MAX_CACHED_WORKFLOWS ? { WORKER_MAX_CACHED_WORKFLOWS: process.env.BENCH_MAX_CACHED_WORKFLOWS } : {}),
    // As the worker's start script caps V8's old space (scripts/run.sh worker); BENCH_WORKER_HEAP_MB=0 leaves V8's default.
    // And its young generation as the start script sets it; BENCH_WORKER_NODE_OPTIONS replaces that (say, '' for V8's default).
    NODE_OPTIONS: [process.env.BENCH_WORKER_HEAP_MB !== '0' && `--max-old-space-size=${process.env.BENCH_WORKER_HEAP_MB ?? 384}`, process.env.BENCH_WORKER_NODE_OPTIONS ?? '--max-semi-space-size=4']
      .filter(Boolean)
      .join(' '),
    TEMPORAL_ADDRESS: o.temporalAddress,
    ADMIN_PORT: String(adminPort),
    TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
  };
  return { child: await o.track(spawnService(path.join(o.dist, 'worker.js'), env, adminPort)), adminPort };
}

/** The API from the production build, as `npm run api` and compose start it; resolves once it accepts connections. */
export async function spawnApi(o: Pick<PassOptions, 'dist' | 'appEnv' | 'temporalAddress' | 'track'>): Promise<{ child: ChildProcess; port: number; adminPort: number }> {
  const [port, adminPort] = await Promise.all([freePort(), freePort()]);
  // BENCH_API_MALLOC_ARENA_MAX, BENCH_API_NODE_OPTIONS: the API's memory settings, to measure what they do to its RSS.
  // By default the API runs as `npm run api` and compose start it (API_NODE_OPTIONS; '' for V8's default).
  const apiNodeOptions = process.env.BENCH_API_NODE_OPTIONS ?? API_NODE_OPTIONS;
  const apiTuning = {
    ...(process.env.BENCH_API_MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.BENCH_API_MALLOC_ARENA_MAX } : {}),
    ...(apiNodeOptions ? { NODE_OPTIONS: apiNodeOptions } : {}),
  };
  const child = await o.track(
    spawnService(path.join(o.dist, 'api.js'), { ...o.appEnv, ...apiTuning, TEMPORAL_ADDRESS: o.temporalAddress, PORT: String(port), ADMIN_PORT: String(adminPort) }, port),
  );
  return { child, port, adminPort };
}

/** A business on the enterprise tier with a budget far above the load, so rate limits do not shape results. */
export async function benchBusiness(orm: MikroORM, name: string) {
  const { business, keys } = await createBusiness(orm.em.fork(), {
    ...DEMO_BUSINESS,
    name,
    rateLimitTier: 'enterprise',
    rateLimitPerMinute: 10_000_000,
    rateLimitBurst: 10_000_000,
  });
  return { business, key: keys.find((k) => k.mode === 'test')!.secret };
}

export async function runPass(o: PassOptions) {
  const { orm, seconds: SECONDS } = o;
  const workers: { child: ChildProcess; adminPort: number }[] = [];
  for (let i = 0; i < o.workers; i++) workers.push(await spawnWorker(o));
  const { child: api, port: apiPort, adminPort: apiAdminPort } = await spawnApi(o);
  const { business, key } = await benchBusiness(orm, `Bench (${o.name})`);
  // (c)'s endpoints subscribe to every event, on a business of their own, so other scenarios' events do not load them.
  const hooks = await benchBusiness(orm, `Bench webhooks (${o.name})`);
  const origin = `https://127.0.0.1:${apiPort}`;
  const post = { method: 'POST' as const, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: o.sessionBody };
  const client = jsonClient(origin, o.ca);
  const probe = await client.post('/api/checkout/sessions', JSON.parse(o.sessionBody), key);
  if (probe.status !== 201) throw new Error(`session create answered ${probe.status}: ${JSON.stringify(probe.body)}`);

  const samples: Record<string, number[]> = {};
  /** This round's F4, which (b)'s and (c)'s offered rates follow. */
  let lastF4 = 0;
  const add = (name: string, value: number) => (samples[name] ??= []).push(value);
  const cpuNow = () => cpuByGroup({ api: api.pid, workers: workers.map((w) => w.child.pid) });
  /** CPU per operation by process group between a reading and now, kept as figures (`CPU ms per …`). */
  const addCpu = (operation: string, before: CpuGroups, operations: number) => {
    for (const [group, ms] of Object.entries(perOperation(before, cpuNow(), operations))) add(`CPU ms per ${operation}: ${group}`, ms);
  };
  const scenarioRuns: Record<string, unknown>[] = [];
  const apiPeakUnderA: number[] = [];
  const sessionsUrl = `${origin}/api/checkout/sessions`;
  const { f1Port, f2Port, writesPort, workPort, workPid } = o.references;
  const groups: Record<string, (round: number) => Promise<void>> = {
    a: async () => {
      add('F1 bare Koa 201 (req/s)', (await load({ url: `https://127.0.0.1:${f1Port}/`, durationSec: SECONDS, connections: 32 })).rps);
      add('F2 Koa + INSERT (req/s)', (await load({ url: `https://127.0.0.1:${f2Port}/`, method: 'POST', durationSec: SECONDS, connections: 32 })).rps);
      // Each of the three warmed for 2 s first (JIT, pools), so none is measured cold.
      const warm = (url: string) => load({ url, ...post, durationSec: 2, connections: 32 });
      for (const [name, port] of [['its writes alone', writesPort], ['key lookup + rate count + writes', workPort]] as const) {
        await warm(`https://127.0.0.1:${port}/`);
        const cpuBefore = cpuByGroup({ api: workPid, workers: [] });
        const reference = await load({ url: `https://127.0.0.1:${port}/`, ...post, durationSec: SECONDS, connections: 32 });
        if (reference.non2xx || reference.errors) throw new Error(`reference answered ${JSON.stringify(reference.statuses)}`);
        add(`(a) reference, raw pg: ${name} (req/s)`, reference.rps);
        // The reference's own process stands in the `api` group.
        if (port === workPort && workPid) {
          for (const [group, ms] of Object.entries(perOperation(cpuBefore, cpuByGroup({ api: workPid, workers: [] }), reference.rps * SECONDS))) {
            add(`CPU ms per session create, by-hand reference: ${group === 'api' ? 'reference' : group}`, ms);
          }
        }
      }
      await warm(sessionsUrl);
      // The API's peak under (a) alone: its high-water mark reset before, read after.
      resetPeakRss(api.pid);
      const cpuBeforeA = cpuNow();
      const a = await load({ url: sessionsUrl, ...post, durationSec: SECONDS, connections: 32 });
      addCpu('session create at max', cpuBeforeA, a.rps * SECONDS);
      add('(a) create session, max (req/s)', a.rps);
      if (a.non2xx || a.errors) process.stderr.write(`(a) answered ${JSON.stringify(a.statuses)} with ${a.errors} errors\n`);
      add('(a) workflow-start backlog after the max run, drained in (ms)', await quiet(orm));
      // The max run's inserts are due an autovacuum that would land in the next run's tail; vacuumed now, as pgbench does.
      await orm.em.getConnection().execute('vacuum analyze checkout_sessions, session_items');
      const halfRate = Math.max(1, Math.floor(a.rps / 2));
      // What else happened while it ran: the API's own event-loop delay (prom-client resets it at each
      // scrape), its mark-compacts, and PostgreSQL's checkpoints, so a tail can be placed.
      const apiMetrics = async () => (await fetch(`http://127.0.0.1:${apiAdminPort}/metrics`)).text();
      const metric = (text: string, name: string) => Number(new RegExp(`^${name} ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
      const checkpoints = async () =>
        Number((await orm.em.getConnection().execute<{ n: string }[]>('select (num_timed + num_requested)::text as n from pg_stat_checkpointer'))[0].n);
      const gcSeconds = (text: string, kind: string) => metric(text, `nodejs_gc_duration_seconds_sum\\{kind="${kind}"\\}`) || 0;
      const metricsBefore = await apiMetrics();
      const before = { checkpoints: await checkpoints(), majorGcs: metric(metricsBefore, 'nodejs_gc_duration_seconds_count\\{kind="major"\\}') };
      const half = await fixedRateLatency({ url: sessionsUrl, ...post, ca: o.ca, rate: halfRate, durationSec: SECONDS });
      const after = await apiMetrics();
      add("(a) at half rate: the API's own event-loop delay, max (ms)", Math.round(metric(after, 'nodejs_eventloop_lag_max_seconds') * 1000));
      add("(a) at half rate: the API's own event-loop delay, p99 (ms)", Math.round(metric(after, 'nodejs_eventloop_lag_p99_seconds') * 1000));
      add("(a) at half rate: the API's mark-compacts", metric(after, 'nodejs_gc_duration_seconds_count\\{kind="major"\\}') - before.majorGcs);
      add("(a) at half rate: PostgreSQL checkpoints", (await checkpoints()) - before.checkpoints);
      for (const kind of ['minor', 'major', 'incremental']) {
        add(`(a) at half rate: the API's ${kind} GC pauses, total (ms)`, Math.round((gcSeconds(after, kind) - gcSeconds(metricsBefore, kind)) * 1000));
      }
      if (half.errors || Object.keys(half.statuses).some((code) => code !== '201')) {
        process.stderr.write(`(a) at half rate answered ${JSON.stringify(half.statuses)} with ${half.errors} errors\n`);
      }
      add('(a) create session at half rate, achieved (req/s)', half.rps);
      add('(a) at half rate, open loop: p50 (ms)', half.p50);
      add('(a) at half rate, open loop: p99 (ms)', half.p99);
      add('(a) at half rate: sockets the generator opened while measuring', half.socketsOpened);
      add("(a) at half rate: the generator's own event-loop delay, max (ms)", half.generatorDelayMs.max);
      process.stderr.write(
        `(a) at ${halfRate}/s, open loop: p50 ${half.p50} ms, p99 ${half.p99} ms; ${half.socketsOpened} sockets opened; generator loop delay p99 ${half.generatorDelayMs.p99} ms, max ${half.generatorDelayMs.max} ms\n`,
      );
      await quiet(orm);
      const bursts = await load({ url: sessionsUrl, ...post, durationSec: SECONDS, connections: 64, rate: halfRate });
      add("(a) at half rate in autocannon's per-second bursts: p99 (ms)", bursts.p99);
      const peakUnderA = peakRssMb(api.pid) ?? NaN;
      apiPeakUnderA.push(peakUnderA);
      process.stderr.write(`(a) API peak RSS this round: ${peakUnderA} MB\n`);
    },
    'b,c,d': async () => {
      const cpuBeforeF3 = cpuNow();
      const f3 = await floorWorkflowStarts(o.temporalAddress, SECONDS * 1000);
      add('F3 workflow starts, no worker (/s)', f3);
      addCpu('F3 start', cpuBeforeF3, f3 * SECONDS);
      const cpuBeforeF4 = cpuNow();
      lastF4 = await floorWorkflowCompletions(o.temporalAddress, SECONDS * 1000);
      // F4's worker and client run in this process: its share is the `bench` group's.
      addCpu('F4 workflow', cpuBeforeF4, lastF4 * SECONDS);
      add('F4 one-activity workflows, 32 in flight (/s)', lastF4);
    },
    b: async (round) => {
      // Offered above capacity, or the figure is the offered rate: at least F4 refunds a second (2 × F4
      // transitions, over twice the target), as F4 on a faster machine outgrew the fixed rate.
      const rate = Math.max(o.rates.refund, Math.ceil(lastF4));
      add('(b) refunds offered (/s)', rate);
      let cpuBeforeB = cpuNow();
      const b = await refundsScenario(client, orm, key, business.id, rate, rate * SECONDS, { beforeRefunds: () => void (cpuBeforeB = cpuNow()) });
      addCpu('refund', cpuBeforeB, b.refunds);
      add('(b) refunds completed end to end (/s)', b.completionsPerSec);
      add('(b) refund state transitions (/s)', b.transitionsPerSec);
      add('(b) refund create → completed p50 (ms)', b.p50Ms);
      add('(b) refund create → completed p99 (ms)', b.p99Ms);
      scenarioRuns.push({ round, b });
    },
    c: async (round) => {
      const urls = round === 1 ? o.receivers.urls : [];
      // As (b): at least 1.5 × F4 deliveries a second offered (events of one delivery per endpoint each).
      const rate = Math.max(o.rates.event, Math.ceil((lastF4 * 1.5) / o.receivers.urls.length));
      add('(c) deliveries offered (/s)', rate * o.receivers.urls.length);
      const cpuBeforeC = cpuNow();
      const c = await webhookScenario(client, orm, hooks.key, hooks.business.id, urls, rate, rate * SECONDS, o.receivers.urls.length);
      // The deliveries' workflows too, which may close after the last POST: their CPU and their rate count.
      const temporal = new Client({ connection: await Connection.connect({ address: o.temporalAddress }) });
      const closedAt = await deliveryWorkflowsClosed(temporal).finally(() => temporal.connection.close());
      addCpu('webhook delivery', cpuBeforeC, c.deliveries);
      add('(c) webhook deliveries to 10 receivers (/s)', c.deliveriesPerSec);
      add('(c) delivery workflows closed (/s)', Math.round(((c.deliveries * 1000) / Math.max(1, closedAt - c.firstEventAt)) * 10) / 10);
      add('(c) commit → first attempt p50 (ms)', c.commitToFirstAttemptP50Ms);
      add('(c) commit → first attempt p99 (ms)', c.commitToFirstAttemptP99Ms);
      // At a rate the service keeps up with: the path's own latency, not queueing.
      const calm = await webhookScenario(client, orm, hooks.key, hooks.business.id, [], o.rates.calmEvent, o.rates.calmEvent * SECONDS, o.receivers.urls.length);
      add(`(c) commit → first attempt at ${o.rates.calmEvent * 10} deliveries/s, p50 (ms)`, calm.commitToFirstAttemptP50Ms);
      add(`(c) commit → first attempt at ${o.rates.calmEvent * 10} deliveries/s, p99 (ms)`, calm.commitToFirstAttemptP99Ms);
      add(`(c) at ${o.rates.calmEvent * 10} deliveries/s: commit → deliveries written, p50 (ms)`, calm.commitToFanOutP50Ms);
      add(`(c) at ${o.rates.calmEvent * 10} deliveries/s: deliveries written → first attempt, p50 (ms)`, calm.fanOutToFirstAttemptP50Ms);
      scenarioRuns.push({ round, c, calm });
    },
    d: async (round) => {
      add('F6 balance lock txn, 1 client (/s)', await floorBalanceLock(o.databaseUrl, 1, SECONDS * 1000));
      add('F6 balance lock txn, 16 clients (/s)', await floorBalanceLock(o.databaseUrl, 16, SECONDS * 1000));
      const cpuBeforeD = cpuNow();
      const d = await withdrawalsScenario(origin, orm, key, business.id, SECONDS);
      // The withdrawals' creates and their workflows' starts; their processing waits 20 s, past this reading.
      addCpu('withdrawal create', cpuBeforeD, d.withdrawals);
      add('(d) withdrawals, 16 clients on one business (/s)', d.withdrawalsPerSec);
      add('(d) overdrafts', d.overdrafts);
      scenarioRuns.push({ round, d });
    },
  };
  for (let round = 1; round <= o.rounds; round++) {
    process.stderr.write(`${o.name}: round ${round}/${o.rounds}\n`);
    for (const names of o.groups) {
      await quiet(orm); // each measurement starts on a quiet service
      await groups[names](round);
    }
  }
  await quiet(orm);
  const workerStats = [];
  for (const w of workers) {
    const h = await scrapeScheduleToStart(w.adminPort).catch(() => null);
    workerStats.push({
      peakRssMb: peakRssMb(w.child.pid),
      // Over the whole pass, every scenario's load included: Prometheus buckets, so upper bounds.
      workflowTaskScheduleToStart: h && { count: h.count, meanMs: h.count ? Math.round(h.sumMs / h.count) : 0, p50AtMostMs: quantileBound(h, 0.5), p99AtMostMs: quantileBound(h, 0.99), buckets: h.buckets },
    });
  }
  const peaks = { api: peakRssMb(api.pid), apiUnderA: apiPeakUnderA.length ? Math.max(...apiPeakUnderA) : null, workers: workerStats.map((w) => w.peakRssMb) };
  await Promise.all([api, ...workers.map((w) => w.child)].map((child) => stopService(child)));
  return { name: o.name, samples, scenarioRuns, peaks, workerStats };
}
