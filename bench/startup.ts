/**
 * (s) Start-up: the production build's API and worker started `runs` times each with plain `node dist/…`,
 * as `npm run api` / `npm run worker` and the image start them, against this run's migrated database and
 * Temporal, timed from spawn to the line that says each is ready: `API listening` (HTTPS and ops ports
 * bound, database and Temporal connected) and `worker running` (polling). The budget (API 2 s, worker
 * 3 s, docs/production.md) is judged on the process's own CPU time at that line, the median of the runs:
 * on two shared cores a start's wall time measures the other processes' load, its CPU what the start costs.
 * The runs share one compile cache (NODE_COMPILE_CACHE, as the image sets it), empty before the first:
 * the first run is the cold start a new container makes, reported beside the median.
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
    const none = { wallMs: NaN, cpuMs: NaN };
    const timer = setTimeout(() => resolve(none), GIVE_UP_MS);
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4096);
      if (!seen.includes(line)) return;
      clearTimeout(timer);
      resolve({ wallMs: Math.round(performance.now() - started), cpuMs: processCpuMs(child.pid!) });
    });
    child.once('exit', () => resolve(none));
  });
  child.stdout!.resume();
  await stopService(child);
  return ready;
}

/** `runs` starts of the API and of the worker, alternated, and the budget's two rows. */
export async function measureStartup(o: Options): Promise<StartupResult> {
  const before = os.loadavg();
  const env = { ...o.appEnv, LOG_LEVEL: 'info', NODE_COMPILE_CACHE: path.join(o.root, 'compile-cache') };
  const samples: Record<string, number[]> = Object.fromEntries(Object.values(STARTUP).map((k) => [k, []]));
  for (let i = 0; i < o.runs; i++) {
    const [port, adminPort, workerAdmin, metrics] = await Promise.all(Array.from({ length: 4 }, () => freePort()));
    const api = await timedStart(o, 'api.js', apiEnv({ ...o, appEnv: env }, port, adminPort), 'API listening');
    samples[STARTUP.apiWall].push(api.wallMs);
    samples[STARTUP.apiCpu].push(api.cpuMs);
    const worker = await timedStart(o, 'worker.js', workerEnv({ ...o, appEnv: env }, workerAdmin, metrics), 'worker running');
    samples[STARTUP.workerWall].push(worker.wallMs);
    samples[STARTUP.workerCpu].push(worker.cpuMs);
    process.stderr.write(`bench: start-up run ${i + 1}/${o.runs}: API ${api.cpuMs} ms CPU (${api.wallMs} wall), worker ${worker.cpuMs} ms CPU (${worker.wallMs} wall)\n`);
  }
  const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);
  return {
    runs: o.runs,
    samples,
    targets: startupTargets(samples, o.runs),
    loadAverage: { before: round2(before), after: round2(os.loadavg()) },
  };
}

/**
 * The budget's rows: the median CPU of the runs against the ceiling. A run that never became ready has
 * no figure, and then the row is not measured (a median of the starts that happened to work would hide it).
 */
export function startupTargets(samples: Record<string, number[]>, runs: number): Target[] {
  const row = (what: 'api' | 'worker', key: string, label: string): Target => {
    const xs = samples[key] ?? [];
    const missing = xs.length < runs || xs.some((x) => !Number.isFinite(x) || x <= 0);
    const measured = missing ? null : median(xs);
    const judged = missing
      ? { verdict: 'not measured' as const, why: `${runs - xs.filter((x) => Number.isFinite(x) && x > 0).length} of ${runs} starts never said they were ready` }
      : judgeAtMost(measured, BUDGET_MS[what], 'ms', `${label} CPU`);
    const spread = missing ? undefined : { min: Math.min(...xs), max: Math.max(...xs) };
    const withinNoise = spread !== undefined && spread.min <= BUDGET_MS[what] && spread.max > BUDGET_MS[what];
    return {
      temporal: 'start-up',
      scenario: '(s)',
      metric: `${label} start-up CPU, median of ${runs} runs (ms)`,
      target: `≤ ${BUDGET_MS[what]} ms`,
      measured,
      ...judged,
      ...(spread ? { spread, withinNoise } : {}),
      met: judged.verdict === 'met',
    };
  };
  return [row('api', STARTUP.apiCpu, 'API'), row('worker', STARTUP.workerCpu, 'worker')];
}
