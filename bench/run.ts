/**
 * `npm run bench`: each scenario beside its floor, interleaved in one run on this machine, printed as
 * ratios and written to bench/results/<date>.json and .md. A benchmark, not a test: it asserts nothing.
 * The API and worker run from the production build (compiled JavaScript, prebuilt workflow bundle).
 * (p) pays sessions (bench/payments.ts); (s) starts the API and the worker, against the start-up budget
 * (bench/startup.ts), first, while the machine is quiet. With BENCH_TEMPORAL=real, (b), (c), (d), (p) and their floors run again against a real Temporal
 * server on PostgreSQL (bench/real-temporal.ts), with one worker and then with two. `history` in
 * BENCH_ONLY (`npm run bench:history`) runs the history benchmark (bench/history/pass.ts) last.
 */
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startReceivers } from './scenarios.js';
import { writeResults, type PassResult } from './report.js';
import { freePort } from '../src/dev/free-port.js';
import { buildDist, serviceEnv, spawnService, startInfrastructure, stopService } from './stack.js';
import { beforeAndAfter, historyCounts } from './history-actions.js';
import { API_NODE_FLAGS, API_NODE_OPTIONS, runPass, type PassOptions } from './pass.js';
import { startRealTemporal } from './real-temporal.js';
import { computeTargets, median, type PassPlan } from './targets.js';
import { runHistory } from './history/pass.js';
import { measureStartup } from './startup.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
// Three: a goal is judged on the median of the rounds' ratios, and one round's spike cannot decide it.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// The real server's passes, one per worker count; one round each unless told (they run after the dev server's).
const REAL_ROUNDS = Number(process.env.BENCH_REAL_ROUNDS ?? 1);
const REAL_WORKERS = (process.env.BENCH_REAL_WORKERS ?? '1,2').split(',').map(Number);
const REAL = process.env.BENCH_TEMPORAL === 'real';
// (s)'s starts of each process: seven, so one slow start among them cannot move the median.
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 7);
// Arrival rates above what the floors suggest the service can finish, so the figures measure capacity:
// the least offered; (b) and (c) offer more where the round's F4 says the machine can take more (bench/groups.ts).
const rates = {
  refund: Number(process.env.BENCH_REFUND_RATE ?? 25),
  event: Number(process.env.BENCH_EVENT_RATE ?? 5),
  // Events per second (ten deliveries each) well inside capacity, for the fan-out's own latency.
  calmEvent: Number(process.env.BENCH_CALM_EVENT_RATE ?? 1),
};
// BENCH_ONLY=a,d runs just those scenarios (with their floors), for working on one target at a time;
// `history` the history benchmark, which takes many minutes and so runs only when named.
const ONLY = new Set((process.env.BENCH_ONLY ?? 'a,b,c,d,p,s').split(',').map((s) => s.trim()));
const ONLY_ALL = ['a', 'b', 'c', 'd', 'p', 's'].every((s) => ONLY.has(s));
// 'b,c,d' is Temporal's floors (F3, F4), which (b), (c) and (d) are measured against.
const groupsFor = (scenarios: string[]) => ['a', 'b,c,d', 'b', 'c', 'd', 'p'].filter((g) => g.split(',').some((n) => ONLY.has(n) && scenarios.includes(n)));

/**
 * A figure over the rounds: their median (of an even count, the mean of the middle two, to 0.01), of the
 * rounds that gave one (NaN, null in the file, where none did). The goals do not read it: a round
 * without a figure leaves its goal not measured (bench/verdict.ts).
 */
const figure = (xs: number[]) => Math.round(median(xs.filter(Number.isFinite)) * 100) / 100;

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
const cleanup: (() => Promise<void>)[] = [];
const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

type Infrastructure = Awaited<ReturnType<typeof startInfrastructure>>;
/** What every pass of this run shares; a pass adds its name, its Temporal, its workers, its groups and rounds. */
type CommonOptions = Omit<PassOptions, 'name' | 'temporalAddress' | 'workers' | 'groups' | 'rounds'>;
type RealServer = { startMs: number; description: string };

async function main() {
  const build = buildDist();
  process.stderr.write(`bench: production build in ${build.dir} (${build.buildMs} ms)\n`);
  const infra = await startInfrastructure();
  cleanup.unshift(infra.stop);
  const appEnv = serviceEnv(infra);
  const startup = ONLY.has('s')
    ? await measureStartup({ dist: build.dir, appEnv, temporalAddress: infra.temporalAddress, track, root: infra.root, runs: STARTUP_RUNS })
    : undefined;
  const receivers = await startReceivers(infra.tls);
  let passes: PassResult[] = [];
  let realServer: RealServer | undefined;
  let floors: ChildProcess[] = [];
  if (groupsFor(['a', 'b', 'c', 'd', 'p']).length) {
    const started = await startFloors(infra);
    floors = started.children;
    const common = {
      dist: build.dir, appEnv, seconds: SECONDS, orm: infra.orm, databaseUrl: infra.databaseUrl, ca: infra.ca, tls: infra.tls, receivers, rates, sessionBody,
      references: started.references, track,
    };
    ({ passes, realServer } = await runPasses(common, infra));
  }
  // Last: its seeded withdrawals stay `pending` for good, which the passes' wait for a quiet service would wait on.
  const history = ONLY.has('history')
    ? await runHistory({ dist: build.dir, appEnv, temporalAddress: infra.temporalAddress, orm: infra.orm, ca: infra.ca, receivers, track })
    : undefined;
  await receivers.close();
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    conditions: conditions(build, appEnv, infra, realServer),
    // Every pass's targets in one array: the dev server's are the performance table's (docs/benchmark.md); the real server's the same ratios on its own floors;
    // the history benchmark's, `history: …`.
    targets: [...(startup?.targets ?? []), ...passes.flatMap((p) => p.targets), ...(history?.targets ?? [])],
    startup,
    passes,
    history: history?.history,
    // Per business operation, from the recorded histories the replay tests keep (bench/history-actions.ts).
    // Temporal actions and events per operation, before and after `patched('local-database-steps')`.
    actionsPerOperation: beforeAndAfter(historyCounts()),
    historyCounts: historyCounts(),
  };
  await Promise.all(floors.map((child) => stopService(child)));
  for (const step of cleanup.splice(0)) await step();
  writeResults(results, ONLY_ALL ? '' : `-only-${[...ONLY].join('')}`);
}

/** The floors F1 and F2 and (a)'s by-hand references (bench/floors/session-writes.ts), on ports of their own. */
async function startFloors(infra: Infrastructure): Promise<{ children: ChildProcess[]; references: PassOptions['references'] }> {
  const tlsEnv = { TLS_CERT: infra.tls.certFile, TLS_KEY: infra.tls.keyFile };
  const [f1Port, f2Port, writesPort, workPort] = await Promise.all(Array.from({ length: 4 }, () => freePort()));
  // They stay TypeScript: they are not the service.
  const children = [
    await track(spawnService('bench/floors/bare-koa.ts', { ...tlsEnv, PORT: String(f1Port) })),
    await track(spawnService('bench/floors/koa-insert.ts', { ...tlsEnv, PORT: String(f2Port), DATABASE_URL: infra.databaseUrl })),
    await track(spawnService('bench/floors/session-writes.ts', { ...tlsEnv, PORT: String(writesPort), DATABASE_URL: infra.databaseUrl, REFERENCE: 'writes' })),
    await track(spawnService('bench/floors/session-writes.ts', { ...tlsEnv, PORT: String(workPort), DATABASE_URL: infra.databaseUrl, REFERENCE: 'work' })),
  ];
  return { children, references: { f1Port, f2Port, writesPort, workPort, workPid: children[3].pid } };
}

/** The dev server's pass; then, with BENCH_TEMPORAL=real, (b), (c), (d) and (p) against a real server, once per worker count. */
async function runPasses(common: CommonOptions, infra: Infrastructure): Promise<{ passes: PassResult[]; realServer?: RealServer }> {
  let loadBefore = load();
  const devGroups = groupsFor(['a', 'b', 'c', 'd', 'p']);
  const dev = await runPass({ ...common, name: 'dev server', temporalAddress: infra.temporalAddress, workers: 1, groups: devGroups, rounds: ROUNDS });
  const passes = [passResult(dev, ['temporal', ...infra.temporalArgs].join(' '), loadBefore, plan(devGroups, ROUNDS))];
  if (!REAL || !groupsFor(['b', 'c', 'd', 'p']).length) return { passes };
  const real = await startRealTemporal(infra.root);
  cleanup.unshift(real.stop);
  process.stderr.write(`bench: real Temporal server at ${real.address} (up in ${real.startMs} ms)\n`);
  for (const workers of REAL_WORKERS) {
    loadBefore = load();
    const name = `real server, ${workers} worker${workers > 1 ? 's' : ''}`;
    const groups = groupsFor(['b', 'c', 'd', 'p']);
    const p = await runPass({ ...common, name, temporalAddress: real.address, workers, groups, rounds: REAL_ROUNDS });
    passes.push(passResult(p, real.description, loadBefore, plan(groups, REAL_ROUNDS)));
  }
  return { passes, realServer: { startMs: real.startMs, description: real.description } };
}

/** The scenarios a pass's groups ran ('b,c,d' is Temporal's floors, no scenario) and its rounds: whose goals it must report. */
const plan = (groups: string[], rounds: number): PassPlan => ({ scenarios: groups.filter((g) => !g.includes(',')), rounds });

/** A pass with its figures (each sample's median over the rounds) and the targets they meet. */
function passResult(p: Awaited<ReturnType<typeof runPass>>, temporal: string, loadBefore: number[], ran: PassPlan): PassResult {
  const figures = Object.fromEntries(Object.entries(p.samples).map(([k, v]) => [k, figure(v)]));
  return { ...p, temporal, figures, targets: computeTargets(p.name, p.samples, p.peaks, rates.calmEvent, ran), loadAverage: { before: loadBefore, after: load() } };
}

/** How the figures were taken: durations, builds, memory settings, the load tool, what runs between measurements. */
function conditions(build: { dir: string; buildMs: number }, appEnv: Record<string, string>, infra: Infrastructure, realServer: RealServer | undefined) {
  return {
    seconds: SECONDS,
    rounds: ROUNDS,
    startupRuns: ONLY.has('s') ? STARTUP_RUNS : undefined,
    realRounds: REAL ? REAL_ROUNDS : undefined,
    build: `production build (scripts/build.ts) in ${path.relative(process.cwd(), build.dir)}, built in ${build.buildMs} ms; API and workers under plain node`,
    workerEnv: `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}; workflow cache ${process.env.BENCH_MAX_CACHED_WORKFLOWS ?? 'service default (src/config.ts)'}; ${process.env.BENCH_WORKER_HEAP_MB === '0' ? "V8's default heap limit" : `--max-old-space-size=${process.env.BENCH_WORKER_HEAP_MB ?? 384}`} ${process.env.BENCH_WORKER_NODE_OPTIONS ?? '--max-semi-space-size=4'}`,
    apiEnv: [process.env.BENCH_API_MALLOC_ARENA_MAX && `MALLOC_ARENA_MAX=${process.env.BENCH_API_MALLOC_ARENA_MAX}`, (process.env.BENCH_API_NODE_OPTIONS ?? API_NODE_OPTIONS) && `NODE_OPTIONS=${process.env.BENCH_API_NODE_OPTIONS ?? API_NODE_OPTIONS}`, API_NODE_FLAGS.length && `node ${API_NODE_FLAGS.join(' ')}`].filter(Boolean).join('; ') || 'defaults',
    realServer,
    postgres: infra.postgresSettings,
    loadTool:
      'autocannon 9 for max throughput (32 connections); (a) at half rate: evenly spaced requests (bench/open-loop.ts) after 3 s at the same rate to open the connection pool, latency from each one\'s due time; autocannon overallRate over 64 connections beside it for comparison',
    withdrawalProcessingDelay: appEnv.WITHDRAWAL_PROCESSING_DELAY,
    betweenMeasurements: 'waits until no outbox row, refund, withdrawal or delivery is in flight; after (a) at max, vacuum analyze of the session tables',
  };
}

main().catch(async (err) => {
  process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
  children.forEach((child) => child.kill('SIGKILL'));
  for (const step of cleanup) await step().catch(() => {});
  process.exit(1);
});
