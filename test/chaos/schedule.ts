/**
 * The fault schedule of a chaos run, drawn from its seed alone (pure: the same seed and length give the
 * same schedule on any machine, whatever the load does). A fault every few seconds, overlapping: an API
 * or a worker killed with SIGKILL and started again after a drawn delay, the Temporal server killed and
 * started 2–20 s later on the same file, PostgreSQL stopped in immediate mode or its postmaster killed,
 * then started again. Two overlaps are placed in every schedule, whatever else it draws: a PostgreSQL
 * fault while Temporal is down, and an API killed while a worker is starting again.
 */
import type { Rng } from './prng.js';

export const TARGETS = ['api-1', 'api-2', 'worker-1', 'worker-2', 'temporal', 'postgres'] as const;
export type Target = (typeof TARGETS)[number];

export type FaultKind = 'kill' | 'postgres-immediate' | 'postgres-kill';

export interface PlannedFault {
  /** Milliseconds from the start of the load. */
  at: number;
  target: Target;
  kind: FaultKind;
  /** How long it stays down before it is started again (its start then takes what it takes). */
  downMs: number;
  /** Why it is where it is, for one of the placed overlaps. */
  note?: string;
}

/** Roughly how long each target takes to start again on a loaded machine: a target is not faulted again before. */
const START_ESTIMATE_MS: Record<Target, number> = { 'api-1': 10_000, 'api-2': 10_000, 'worker-1': 15_000, 'worker-2': 15_000, temporal: 5_000, postgres: 5_000 };

const DOWN_MS: Record<'api' | 'worker' | 'temporal' | 'postgres', [number, number]> = {
  api: [500, 8_000],
  worker: [500, 8_000],
  temporal: [2_000, 20_000],
  postgres: [1_000, 8_000],
};

const groupOf = (t: Target) => (t.startsWith('api') ? 'api' : t.startsWith('worker') ? 'worker' : t) as keyof typeof DOWN_MS;
const postgresKind = (rng: Rng): FaultKind => (rng.chance(0.5) ? 'postgres-immediate' : 'postgres-kill');
const kindFor = (rng: Rng, target: Target): FaultKind => (target === 'postgres' ? postgresKind(rng) : 'kill');

function busyAt(planned: PlannedFault[], target: Target, from: number, to: number): boolean {
  return planned.some((f) => f.target === target && f.at < to && from < f.at + f.downMs + START_ESTIMATE_MS[target]);
}

/** The faults of a run of `durationMs`, in order of time. */
export function drawSchedule(rng: Rng, durationMs: number): PlannedFault[] {
  const planned: PlannedFault[] = [];

  // A PostgreSQL restart while Temporal is down (early in the run).
  const t1 = rng.int(Math.round(durationMs * 0.15), Math.round(durationMs * 0.35));
  const temporalDown = rng.int(12_000, 20_000);
  planned.push({ at: t1, target: 'temporal', kind: 'kill', downMs: temporalDown, note: 'overlap: Temporal down while PostgreSQL restarts' });
  planned.push({ at: t1 + rng.int(2_000, 6_000), target: 'postgres', kind: postgresKind(rng), downMs: rng.int(2_000, 5_000), note: 'overlap: PostgreSQL restarted while Temporal is down' });

  // An API killed while a worker starts again (later in the run).
  const t2 = rng.int(Math.round(durationMs * 0.55), Math.round(durationMs * 0.75));
  const worker = rng.pick(['worker-1', 'worker-2'] as const);
  const workerDown = rng.int(1_000, 4_000);
  planned.push({ at: t2, target: worker, kind: 'kill', downMs: workerDown, note: 'overlap: worker restarting while an API is killed' });
  planned.push({ at: t2 + workerDown + rng.int(500, 3_000), target: rng.pick(['api-1', 'api-2'] as const), kind: 'kill', downMs: rng.int(1_000, 5_000), note: `overlap: API killed while ${worker} starts again` });

  // Every few seconds, one more on whatever is up by the plan.
  for (let at = rng.int(3_000, 6_000); at < durationMs - 5_000; at += rng.int(4_000, 12_000)) {
    const group = rng.weighted([['api', 3], ['worker', 3], ['temporal', 2], ['postgres', 2]] as const);
    const downMs = rng.int(...DOWN_MS[group]);
    const candidates = TARGETS.filter((t) => groupOf(t) === group && !busyAt(planned, t, at, at + downMs + START_ESTIMATE_MS[t]));
    if (!candidates.length) continue;
    const target = rng.pick(candidates);
    planned.push({ at, target, kind: kindFor(rng, target), downMs });
  }
  return planned.sort((a, b) => a.at - b.at);
}

const KIND_TEXT: Record<FaultKind, string> = { kill: 'kill -9', 'postgres-immediate': 'stop (immediate mode)', 'postgres-kill': 'kill -9 the postmaster of' };

export function describeFault(f: PlannedFault): string {
  return `${KIND_TEXT[f.kind]} ${f.target}, started again after ${(f.downMs / 1000).toFixed(1)} s${f.note ? `  [${f.note}]` : ''}`;
}

export function formatSchedule(faults: PlannedFault[]): string {
  return faults.map((f) => `  +${(f.at / 1000).toFixed(1).padStart(6)} s  ${describeFault(f)}`).join('\n');
}
