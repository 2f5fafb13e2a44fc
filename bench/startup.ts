/**
 * (s) Start-up: the production build's API and worker started `runs` times each with plain `node dist/…`,
 * with the V8 settings their start scripts and the image give them, against this run's migrated database
 * and Temporal, timed from spawn to the line that says each is ready: `API listening` (HTTPS and ops ports
 * bound, database and Temporal connected) and `worker running` (polling). The budget (API 2 s, worker 3 s,
 * docs/production.md) is judged on the process's own CPU time at that line: on two shared cores a start's
 * wall time measures the other processes' load, its CPU what the start costs. Each process has its own
 * compile cache (NODE_COMPILE_CACHE, as the image sets it), empty before its first start: that first start
 * is a new container's, reported apart; the budget is judged on the median of the others, a restart's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../src/dev/free-port.js';
import { processCpuMs } from './cpu.js';
import { API_NODE_FLAGS, apiEnv, workerEnv, type PassOptions } from './pass.js';
import { stopService } from './stack.js';
import type { Target } from './targets.js';
import { judgeAtMost, median } from './verdict.js';

export const STARTUP = {
  apiCpu: '(s) API start, spawn → `API listening`: CPU (ms)',
  apiWall: '(s) API start, spawn → `API listening`: wall (ms)',
  workerCpu: '(s) worker start, spawn → `worker running`: CPU (ms)',
  workerWall: '(s) worker start, spawn → `worker running`: wall (ms)',
};
/** The budget: docs/production.md, "Start-up budget". */
const BUDGET_MS = { api: 2_000, worker: 3_000 };
/** How long one start may take before the run gives up on it (it then has no figure: not measured). */
const GIVE_UP_MS = 60_000;

export interface StartupResult {
  runs: number;
  samples: Record<string, number[]>;
  targets: Target[];
  loadAverage: { before: number[]; after: number[] };
}

/** BENCH_CPU_PROF=<dir>: each start writes a V8 CPU profile there when it exits, as every service of the bench does. */
const cpuProfile = () => (process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []);

type Options = Pick<PassOptions, 'dist' | 'appEnv' | 'temporalAddress' | 'track'> & { root: string; runs: number };

/** One start: spawn → the ready line, its wall and CPU time then; NaN for both if it never said it. */
async function timedStart(o: Options, entry: 'api.js' | 'worker.js', env: Record<string, string>, line: string): Promise<{ wallMs: number; cpuMs: number }> {
  const started = performance.now();
  // Only what an operator sets: nothing of this process's own (its loader) is inherited.
  const child: ChildProcess = await o.track(
    Promise.resolve(
      spawn(process.execPath, [...(entry === 'api.js' ? API_NODE_FLAGS : []), ...cpuProfile(), path.join(o.dist, entry)], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    ),
  );
  const ready = await new Promise<{ wallMs: number; cpuMs: number }>((resolve) => {
    let seen = '';
    const done = (figures: { wallMs: number; cpuMs: number }) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(figures);
    };
    const none = () => done({ wallMs: NaN, cpuMs: NaN });
    const timer = setTimeout(none, GIVE_UP_MS);
    // The CPU is read as the line arrives, before anything else of this process runs.
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4096);
      if (seen.includes(line)) done({ wallMs: Math.round(performance.now() - started), cpuMs: processCpuMs(child.pid!) });
    };
    child.stdout!.on('data', onData);
    child.once('exit', none);
  });
  child.stdout!.resume();
  await stopService(child);
  return ready;
}

/** `runs` starts of the API and of the worker, alternated, and the budget's two rows. */
export async function measureStartup(o: Options): Promise<StartupResult> {
  const before = os.loadavg();
  const env = (name: string) => ({ ...o.appEnv, LOG_LEVEL: 'info', NODE_COMPILE_CACHE: path.join(o.root, `compile-cache-${name}`) });
  const samples: Record<string, number[]> = Object.fromEntries(Object.values(STARTUP).map((k) => [k, []]));
  for (let i = 0; i < o.runs; i++) {
    const [port, adminPort, workerAdmin, metrics] = await Promise.all(Array.from({ length: 4 }, () => freePort()));
    const api = await timedStart(o, 'api.js', apiEnv({ ...o, appEnv: env('api') }, port, adminPort), 'API listening');
    samples[STARTUP.apiWall].push(api.wallMs);
    samples[STARTUP.apiCpu].push(api.cpuMs);
    const worker = await timedStart(o, 'worker.js', workerEnv({ ...o, appEnv: env('worker') }, workerAdmin, metrics), 'worker running');
    samples[STARTUP.workerWall].push(worker.wallMs);
    samples[STARTUP.workerCpu].push(worker.cpuMs);
    process.stderr.write(`bench: start-up run ${i + 1}/${o.runs}: API ${api.cpuMs} ms CPU (${api.wallMs} wall), worker ${worker.cpuMs} ms CPU (${worker.wallMs} wall)\n`);
  }
  const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);
  return {
    runs: o.runs,
    samples,
    targets: startupTargets(samples, o.runs, process.env.BENCH_CPU_PROF ? 'profiled (BENCH_CPU_PROF): the profiler costs CPU of its own' : undefined),
    loadAverage: { before: round2(before), after: round2(os.loadavg()) },
  };
}

/**
 * The budget's rows: the median CPU of the starts after the first (a restart's, its compile cache warm)
 * against the ceiling; the first (a new container's) stays in the figures and the report's start-up line. A start
 * that never became ready leaves the row not measured (a median of the starts that happened to work would
 * hide it); so does a run whose figures were taken under the profiler (`notMeasured`).
 */
export function startupTargets(samples: Record<string, number[]>, runs: number, notMeasured?: string): Target[] {
  const row = (what: 'api' | 'worker', key: string, label: string): Target => {
    const all = samples[key] ?? [];
    const warm = all.slice(1);
    const failed = runs - all.filter((x) => Number.isFinite(x) && x > 0).length;
    const missing = runs < 2 || all.length < runs || failed > 0;
    const measured = missing || notMeasured ? null : median(warm);
    const judged = missing
      ? { verdict: 'not measured' as const, why: runs < 2 ? 'one start is only the cold one: no restart was measured' : `${failed} of ${runs} starts never said they were ready` }
      : notMeasured
        ? { verdict: 'not measured' as const, why: notMeasured }
        : judgeAtMost(measured, BUDGET_MS[what], 'ms', `${label} CPU`);
    const spread = measured === null ? undefined : { min: Math.min(...warm), max: Math.max(...warm) };
    const withinNoise = spread !== undefined && spread.min <= BUDGET_MS[what] && spread.max > BUDGET_MS[what];
    return {
      temporal: 'start-up',
      scenario: '(s)',
      metric: `${label} start-up CPU, restarts: median of ${Math.max(runs - 1, 0)} starts after the first (ms)`,
      target: `≤ ${BUDGET_MS[what]} ms`,
      measured,
      ...judged,
      ...(spread ? { spread, withinNoise } : {}),
      met: judged.verdict === 'met',
    };
  };
  return [row('api', STARTUP.apiCpu, 'API'), row('worker', STARTUP.workerCpu, 'worker')];
}
