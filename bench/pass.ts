/**
 * One pass of the benchmark against one Temporal server: the API and `workers` workers from the
 * production build (plain node, no TypeScript loader), the scenarios `groups` names, `rounds` times,
 * interleaved with their floors (bench/groups.ts). Returns every sample, the peaks and the worker's metrics.
 */
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createBusiness, DEMO_BUSINESS } from '../src/modules/businesses/index.js';
import { freePort } from '../src/dev/free-port.js';
import { cpuByGroup, perOperation } from './cpu.js';
import { GROUPS } from './groups.js';
import type { MeasureOptions, PassRun } from './pass-run.js';
import { jsonClient } from './open-loop.js';
import { quiet } from './scenarios.js';
import { peakRssMb, spawnService, stopService } from './stack.js';
import { quantileBound, scrapeScheduleToStart } from './worker-metrics.js';

/** The API's V8 settings in scripts/run.sh and docker-compose.yml. */
export const API_NODE_OPTIONS = '--max-old-space-size=512 --max-semi-space-size=16';
/**
 * BENCH_API_NODE_FLAGS: V8 flags NODE_OPTIONS refuses (`--single-threaded-gc`), given on the API's command
 * line, to measure what they do. None by default: the API runs as `npm run api` and compose start it.
 */
export const API_NODE_FLAGS = (process.env.BENCH_API_NODE_FLAGS ?? '').split(' ').filter(Boolean);

export interface PassOptions extends MeasureOptions {
  name: string;
  dist: string;
  appEnv: Record<string, string>;
  workers: number;
  /** Which groups to run: 'a', 'b,c,d' (Temporal's floors), 'b', 'c', 'd'. */
  groups: string[];
  rounds: number;
}

/** A worker's environment as its start script gives it (scripts/run.sh worker): its memory settings and ports. */
export function workerEnv(o: Pick<PassOptions, 'appEnv' | 'temporalAddress'>, adminPort: number, metricsPort: number): Record<string, string> {
  return {
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
}

/** A worker from the production build, with the memory settings its start script gives it (scripts/run.sh worker). */
export async function spawnWorker(o: Pick<PassOptions, 'dist' | 'appEnv' | 'temporalAddress' | 'track'>): Promise<{ child: ChildProcess; adminPort: number }> {
  const [adminPort, metricsPort] = await Promise.all([freePort(), freePort()]);
  return { child: await o.track(spawnService(path.join(o.dist, 'worker.js'), workerEnv(o, adminPort, metricsPort), adminPort)), adminPort };
}

/** The API's environment as `npm run api` and compose give it: its memory settings and ports. */
export function apiEnv(o: Pick<PassOptions, 'appEnv' | 'temporalAddress'>, port: number, adminPort: number): Record<string, string> {
  // BENCH_API_MALLOC_ARENA_MAX, BENCH_API_NODE_OPTIONS: the API's memory settings, to measure what they do to its RSS.
  // By default the API runs as `npm run api` and compose start it (API_NODE_OPTIONS; '' for V8's default).
  const apiNodeOptions = process.env.BENCH_API_NODE_OPTIONS ?? API_NODE_OPTIONS;
  return {
    ...o.appEnv,
    ...(process.env.BENCH_API_MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.BENCH_API_MALLOC_ARENA_MAX } : {}),
    ...(apiNodeOptions ? { NODE_OPTIONS: apiNodeOptions } : {}),
    TEMPORAL_ADDRESS: o.temporalAddress,
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
  };
}

/** The API from the production build, as `npm run api` and compose start it; resolves once it accepts connections. */
export async function spawnApi(o: Pick<PassOptions, 'dist' | 'appEnv' | 'temporalAddress' | 'track'>): Promise<{ child: ChildProcess; port: number; adminPort: number }> {
  const [port, adminPort] = await Promise.all([freePort(), freePort()]);
  const child = await o.track(spawnService(path.join(o.dist, 'api.js'), apiEnv(o, port, adminPort), port, API_NODE_FLAGS));
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
  const workers: { child: ChildProcess; adminPort: number }[] = [];
  for (let i = 0; i < o.workers; i++) workers.push(await spawnWorker(o));
  const api = await spawnApi(o);
  const run = await startRun(o, api, workers);
  for (let round = 1; round <= o.rounds; round++) {
    process.stderr.write(`${o.name}: round ${round}/${o.rounds}\n`);
    for (const names of o.groups) {
      await quiet(o.orm); // each measurement starts on a quiet service
      await GROUPS[names](run, round);
    }
  }
  await quiet(o.orm);
  const workerStats = [];
  for (const w of workers) workerStats.push(await workerFigures(w));
  const peaks = { api: peakRssMb(api.child.pid), apiUnderA: run.apiPeakUnderA.length ? Math.max(...run.apiPeakUnderA) : null, workers: workerStats.map((w) => w.peakRssMb) };
  await Promise.all([api.child, ...workers.map((w) => w.child)].map((child) => stopService(child)));
  return { name: o.name, samples: run.samples, scenarioRuns: run.scenarioRuns, peaks, workerStats };
}

/** The pass's businesses, a client that has created one session, and the samples its groups fill. */
async function startRun(
  o: PassOptions,
  api: { child: ChildProcess; port: number; adminPort: number },
  workers: { child: ChildProcess; adminPort: number }[],
): Promise<PassRun & { samples: Record<string, number[]> }> {
  const { business, key } = await benchBusiness(o.orm, `Bench (${o.name})`);
  const hooks = await benchBusiness(o.orm, `Bench webhooks (${o.name})`);
  const floorHooks = await benchBusiness(o.orm, `Bench webhook floor (${o.name})`);
  const origin = `https://127.0.0.1:${api.port}`;
  const client = jsonClient(origin, o.ca);
  const probe = await client.post('/api/checkout/sessions', JSON.parse(o.sessionBody), key);
  if (probe.status !== 201) throw new Error(`session create answered ${probe.status}: ${JSON.stringify(probe.body)}`);
  const samples: Record<string, number[]> = {};
  const add = (name: string, value: number) => (samples[name] ??= []).push(value);
  const cpuNow = () => cpuByGroup({ api: api.child.pid, workers: workers.map((w) => w.child.pid) });
  return {
    o,
    api: api.child,
    apiAdminPort: api.adminPort,
    workerAdminPorts: workers.map((w) => w.adminPort),
    origin,
    client,
    key,
    businessId: business.id,
    hooks: { key: hooks.key, businessId: hooks.business.id },
    floorHooks: { key: floorHooks.key, businessId: floorHooks.business.id },
    post: { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: o.sessionBody },
    samples,
    add,
    cpuNow,
    addCpu: (operation, before, operations) => {
      for (const [group, ms] of Object.entries(perOperation(before, cpuNow(), operations))) add(`CPU ms per ${operation}: ${group}`, ms);
    },
    scenarioRuns: [],
    apiPeakUnderA: [],
    lastF4: 0,
    lastF3: 0,
  };
}

/** A worker's peak RSS and, over the whole pass (every scenario's load included), its workflow tasks' schedule-to-start. */
async function workerFigures(w: { child: ChildProcess; adminPort: number }) {
  const h = await scrapeScheduleToStart(w.adminPort).catch(() => null);
  return {
    peakRssMb: peakRssMb(w.child.pid),
    // Prometheus buckets, so upper bounds.
    workflowTaskScheduleToStart: h && { count: h.count, meanMs: h.count ? Math.round(h.sumMs / h.count) : 0, p50AtMostMs: quantileBound(h, 0.5), p99AtMostMs: quantileBound(h, 0.99), buckets: h.buckets },
  };
}
