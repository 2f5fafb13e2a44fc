/**
 * (p) Payments: the hosted pay call (`POST /api/checkout/:id/pay`, a succeeding test card) on sessions
 * created beforehand, so only the pay is measured. Flat out, held to the CPU bound this run derives (the
 * machine's cores ÷ the CPU one payment costs every process: API, worker(s), Temporal, PostgreSQL, the
 * generator); then open loop at half that rate, beside its floor at the same rate with the same generator:
 * the same Temporal round trip with nothing of the service's own in it (bench/floors/pay-floor.ts).
 */
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../src/dev/free-port.js';
import { cpuByGroup, perOperation } from './cpu.js';
import { closedLoop } from './floors/temporal.js';
import { fixedRateLatency } from './open-loop.js';
import type { PassRun } from './pass-run.js';
import { quiet } from './scenarios.js';
import { spawnService, stopService } from './stack.js';
import { P } from './targets.js';
import { sumsByLabel } from './worker-metrics.js';

const payBody = { card: { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' }, name: 'Bench' };
/** Pays in flight flat out: as F4's workflows, enough to keep every process busy. */
const CONCURRENCY = 32;
const WARMUP_SEC = 3;

/** What a pay answered: its status and the session's (`200 completed`), or the error's type; only `completed` is timed. */
export function payOutcome(status: number, text: string): { outcome: string; timed: boolean } {
  let body: { data?: { status?: string }; error?: { type?: string } } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const what = body?.data?.status ?? body?.error?.type ?? 'unreadable';
  return { outcome: `${status} ${what}`, timed: status === 200 && what === 'completed' };
}

/** `count` sessions of the pass's business, created before any pay is measured. */
async function createSessions(run: PassRun, count: number): Promise<string[]> {
  const ids: string[] = [];
  const body = JSON.parse(run.o.sessionBody);
  let left = count;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) {
        const created = await run.client.post('/api/checkout/sessions', body, run.key);
        if (created.status !== 201) throw new Error(`(p) session create answered ${created.status}: ${JSON.stringify(created.body)}`);
        ids.push(created.body.data.id);
      }
    }),
  );
  return ids;
}

/** Pays sessions from `ids` with CONCURRENCY calls in flight for `seconds`; counts every answer by outcome. */
async function payFlatOut(run: PassRun, ids: string[], seconds: number) {
  const outcomes: Record<string, number> = {};
  let completed = 0;
  const started = Date.now();
  await closedLoop(CONCURRENCY, seconds * 1000, async () => {
    const id = ids.pop();
    if (!id) throw new Error('(p) ran out of sessions to pay: raise BENCH_PAY_SESSIONS_PER_SEC');
    const answer = await run.client.post(`/api/checkout/${id}/pay`, payBody).catch(() => ({ status: 0, body: undefined }));
    const { outcome, timed } = payOutcome(answer.status, JSON.stringify(answer.body ?? null));
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (timed) completed++;
  });
  return { completed, outcomes, perSec: Math.round((completed * 10_000) / (Date.now() - started)) / 10 };
}

/** Histograms' sums and counts by label value, as sumsByLabel reads them from a process's /metrics. */
type Sums = Map<string, { sum: number; count: number }>;

/** The worker SDK's histograms (ms), summed over the workers: each step's time by type, each workflow's tasks, the queues' waits. */
async function stepTimes(run: PassRun): Promise<Sums> {
  const all: Sums = new Map();
  for (const port of run.workerAdminPorts) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    // Beside the steps, the workflow's own tasks (by workflow type) and the waits on the queues: what the
    // pay's Temporal round trip spends outside its steps.
    const histograms: [string, string][] = [
      ['temporal_activity_execution_latency', 'activity_type'],
      ['temporal_local_activity_execution_latency', 'activity_type'],
      ['temporal_local_activity_total_latency', 'activity_type'],
      ['temporal_activity_schedule_to_start_latency', 'activity_type'],
      ['temporal_workflow_task_execution_latency', 'workflow_type'],
      ['temporal_workflow_task_schedule_to_start_latency', 'namespace'],
    ];
    for (const [metric, label] of histograms) {
      for (const [type, h] of sumsByLabel(text, metric, label)) {
        const key = `${metric.replace(/^temporal_/, '')}: ${type}`;
        const entry = all.get(key) ?? { sum: 0, count: 0 };
        all.set(key, { sum: entry.sum + h.sum, count: entry.count + h.count });
      }
    }
  }
  return all;
}

/** Each histogram's mean over a measurement, from two readings of its sums, in ms (`toMs` from the sums' unit), to 0.1. */
function meansBetween(before: Sums, after: Sums, toMs = 1): Map<string, number> {
  const means = new Map<string, number>();
  for (const [key, h] of after) {
    const count = h.count - (before.get(key)?.count ?? 0);
    if (count > 0) means.set(key, Math.round(((h.sum - (before.get(key)?.sum ?? 0)) / count) * toMs * 10) / 10);
  }
  return means;
}

/** Each of the payment's own steps' and tasks' mean time (ms) over a measurement, from two readings of stepTimes. */
function addStepMeans(run: PassRun, when: string, before: Sums, after: Sums) {
  for (const [key, ms] of meansBetween(before, after)) {
    if (/beginPayment|chargeCard|completePayment|checkoutWorkflow|reserveRelease|workflow_task_schedule_to_start_latency/.test(key)) run.add(`(p) ${when}, mean ${key} (ms)`, ms);
  }
}

/** The API's pay call phases (pay_call_phase_seconds: session, token, workflow, answer), summed so far. */
async function payPhases(run: PassRun): Promise<Sums> {
  const text = await (await fetch(`http://127.0.0.1:${run.apiAdminPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  return sumsByLabel(text, 'pay_call_phase_seconds', 'phase');
}

/** Each phase's mean (ms) over a measurement: the API's side of the pay's breakdown, beside the workflow's steps. */
function addPhaseMeans(run: PassRun, before: Sums, after: Sums) {
  for (const [phase, ms] of meansBetween(before, after, 1000)) run.add(`(p) at half rate, mean pay call phase: ${phase} (ms)`, ms);
}

/** The floor's two processes on this pass's Temporal, on a task queue of their own. */
async function startFloor(run: PassRun): Promise<{ port: number; api: ChildProcess; worker: ChildProcess }> {
  const port = await freePort();
  const env = { TEMPORAL_ADDRESS: run.o.temporalAddress, TASK_QUEUE: `bench-pay-floor-${Date.now()}`, TLS_CERT: run.o.tls.certFile, TLS_KEY: run.o.tls.keyFile, PORT: String(port) };
  const worker = await run.o.track(spawnService('bench/floors/pay-floor.ts', { ...env, ROLE: 'worker' }));
  const api = await run.o.track(spawnService('bench/floors/pay-floor.ts', { ...env, ROLE: 'api' }));
  return { port, api, worker };
}

/** (p): flat out against the CPU bound, then the pay call and its floor at half that rate, in an order that flips each round. */
export async function payments(run: PassRun, round: number): Promise<void> {
  const { o, add } = run;
  // Enough sessions for the fastest pay rate this machine could keep up (far above the floors' F4).
  const perSec = Number(process.env.BENCH_PAY_SESSIONS_PER_SEC ?? 300);
  const ids = await createSessions(run, perSec * (o.seconds + WARMUP_SEC));
  await quiet(o.orm);
  await payFlatOut(run, ids, 2); // the pools, the JIT and the worker's cache warmed, as (a) warms
  await quiet(o.orm);
  const stepsBefore = await stepTimes(run);
  const cpuBefore = run.cpuNow();
  const max = await payFlatOut(run, ids, o.seconds);
  addStepMeans(run, 'flat out', stepsBefore, await stepTimes(run));
  // Up to quiet: a payment's work after its answer (its event's relay) is part of what it costs.
  await quiet(o.orm);
  const cost = perOperation(cpuBefore, run.cpuNow(), max.completed);
  for (const [group, ms] of Object.entries(cost)) add(`CPU ms per payment: ${group}`, ms);
  add(P.flatOut, max.perSec);
  add(P.cpuBound, cost.all > 0 ? Math.round((os.availableParallelism() * 1000) / cost.all) : NaN);
  if (Object.keys(max.outcomes).some((k) => k !== '200 completed')) process.stderr.write(`(p) flat out answered ${JSON.stringify(max.outcomes)}\n`);

  const halfRate = Math.max(1, Math.floor(max.perSec / 2));
  add('(p) half rate (/s)', halfRate);
  const service = async () => {
    const sessions = await createSessions(run, Math.ceil(halfRate * (o.seconds + WARMUP_SEC)) + 1);
    await quiet(o.orm);
    const steps = await stepTimes(run);
    const phases = await payPhases(run);
    const before = run.cpuNow();
    const half = await fixedRateLatency({ url: (i) => `${run.origin}/api/checkout/${sessions[i]}/pay`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payBody), ca: o.ca, rate: halfRate, durationSec: o.seconds, warmupSec: WARMUP_SEC, outcomeOf: payOutcome });
    await quiet(o.orm);
    for (const [group, ms] of Object.entries(perOperation(before, run.cpuNow(), half.offered + halfRate * WARMUP_SEC))) add(`CPU ms per payment at half rate: ${group}`, ms);
    addStepMeans(run, 'at half rate', steps, await stepTimes(run));
    addPhaseMeans(run, phases, await payPhases(run));
    add(P.p50, half.p50);
    add(P.p99, half.p99);
    add(P.counts.offered, half.offered);
    add(P.counts.timed, half.timed);
    add("(p) at half rate: the generator's own event-loop delay, max (ms)", half.generatorDelayMs.max);
    process.stderr.write(`(p) at ${halfRate}/s: p50 ${half.p50} ms, p99 ${half.p99} ms; ${JSON.stringify(half.statuses)}\n`);
  };
  const floor = async () => {
    const f = await startFloor(run);
    try {
      const cpuOfFloor = () => cpuByGroup({ api: f.api.pid, workers: [f.worker.pid] });
      const before = cpuOfFloor();
      const base = `https://127.0.0.1:${f.port}`;
      const half = await fixedRateLatency({ url: (i) => `${base}/${round}-${i}`, method: 'POST', headers: {}, body: '', ca: o.ca, rate: halfRate, durationSec: o.seconds, warmupSec: WARMUP_SEC, outcomeOf: payOutcome });
      for (const [group, ms] of Object.entries(perOperation(before, cpuOfFloor(), half.offered + halfRate * WARMUP_SEC))) add(`CPU ms per payment at half rate, floor: ${group}`, ms);
      add(P.floorP50, half.p50);
      add(P.floorP99, half.p99);
      add(P.floorCounts.offered, half.offered);
      add(P.floorCounts.timed, half.timed);
      add("(p) floor at half rate: the generator's own event-loop delay, max (ms)", half.generatorDelayMs.max);
      process.stderr.write(`(p) floor at ${halfRate}/s: p50 ${half.p50} ms, p99 ${half.p99} ms; ${JSON.stringify(half.statuses)}\n`);
    } finally {
      await Promise.all([stopService(f.api), stopService(f.worker)]);
    }
  };
  for (const side of round % 2 ? [service, floor] : [floor, service]) await side();
  run.scenarioRuns.push({ round, p: { flatOut: max, halfRate } });
}
