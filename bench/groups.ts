/**
 * What one round of a pass measures, group by group: (a) session creates beside their floors and by-hand
 * references; Temporal's floors F3 and F4; (b) refunds, (c) webhook deliveries, (d) withdrawals; (p)
 * payments (bench/payments.ts). Each
 * group adds its figures to the pass's samples, in the order the results file lists them.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { floorBalanceLock } from './floors/balance-lock.js';
import { floorWorkflowCompletions, floorWorkflowStarts } from './floors/temporal.js';
import { cpuByGroup, perOperation } from './cpu.js';
import type { PassRun } from './pass-run.js';
import { payments } from './payments.js';
import { load } from './load.js';
import os from 'node:os';
import { fixedRateLatency } from './open-loop.js';
import { deliveryWorkflowsClosed, quiet, refundsScenario, webhookScenario, withdrawalsScenario } from './scenarios.js';
import { peakRssMb, resetPeakRss } from './stack.js';
import { A_HALF_RATE_COUNTS, A_HALF_RATE_P99, A_REFERENCE_HALF_RATE_COUNTS, A_REFERENCE_HALF_RATE_P99, cFigures, D_CPU_BOUND, D_OVERDRAFTS } from './targets.js';

/**
 * (a): the floors F1 and F2; the by-hand references and the API flat out; the API and its reference
 * (key lookup, rate count, writes) each at half the API's max, open loop; the API in autocannon's bursts.
 */
async function sessionCreates(run: PassRun, round: number): Promise<void> {
  const { o, add, post } = run;
  add('F1 bare Koa 201 (req/s)', (await load({ url: `https://127.0.0.1:${o.references.f1Port}/`, durationSec: o.seconds, connections: 32 })).rps);
  add('F2 Koa + INSERT (req/s)', (await load({ url: `https://127.0.0.1:${o.references.f2Port}/`, method: 'POST', durationSec: o.seconds, connections: 32 })).rps);
  const sessionsUrl = `${run.origin}/api/checkout/sessions`;
  let max = 0;
  const apiAtMax = async () => {
    await load({ url: sessionsUrl, ...post, durationSec: 2, connections: 32 });
    // The API's peak under (a) alone: its high-water mark reset before, read after.
    resetPeakRss(run.api.pid);
    const cpuBeforeA = run.cpuNow();
    const a = await load({ url: sessionsUrl, ...post, durationSec: o.seconds, connections: 32 });
    run.addCpu('session create at max', cpuBeforeA, a.rps * o.seconds);
    add('(a) create session, max (req/s)', a.rps);
    if (a.non2xx || a.errors) process.stderr.write(`(a) answered ${JSON.stringify(a.statuses)} with ${a.errors} errors\n`);
    add('(a) workflow-start backlog after the max run, drained in (ms)', await quiet(o.orm));
    max = a.rps;
  };
  // The references and the API flat out, then both at half the API's max: each pair in an order that
  // flips each round, so neither always runs on the warmer or the quieter machine.
  for (const step of round % 2 ? [() => byHandReferences(run), apiAtMax] : [apiAtMax, () => byHandReferences(run)]) {
    await vacuumSessions(o.orm);
    await step();
  }
  const halfRate = Math.max(1, Math.floor(max / 2));
  const sides = [() => halfRateOpenLoop(run, sessionsUrl, halfRate), () => referenceOpenLoop(run, halfRate)];
  for (const side of round % 2 ? sides : [...sides].reverse()) {
    await quiet(o.orm);
    await vacuumSessions(o.orm);
    await side();
  }
  await quiet(o.orm);
  const bursts = await load({ url: sessionsUrl, ...post, durationSec: o.seconds, connections: 64, rate: halfRate });
  add("(a) at half rate in autocannon's per-second bursts: p99 (ms)", bursts.p99);
  const peakUnderA = peakRssMb(run.api.pid) ?? NaN;
  run.apiPeakUnderA.push(peakUnderA);
  process.stderr.write(`(a) API peak RSS this round: ${peakUnderA} MB\n`);
}

/** The previous run's inserts are due an autovacuum that would land in the next one's figures; vacuumed first, as pgbench does. */
const vacuumSessions = (orm: MikroORM) => orm.em.getConnection().execute('vacuum analyze checkout_sessions, session_items');

/** (a)'s references in raw pg: the writes alone, then key lookup, rate count and writes; each warmed for 2 s first (JIT, pools). */
async function byHandReferences({ o, add, post }: PassRun): Promise<void> {
  const { writesPort, workPort, workPid } = o.references;
  for (const [name, port] of [['its writes alone', writesPort], ['key lookup + rate count + writes', workPort]] as const) {
    await load({ url: `https://127.0.0.1:${port}/`, ...post, durationSec: 2, connections: 32 });
    const cpuBefore = cpuByGroup({ api: workPid, workers: [] });
    const reference = await load({ url: `https://127.0.0.1:${port}/`, ...post, durationSec: o.seconds, connections: 32 });
    if (reference.non2xx || reference.errors) throw new Error(`reference answered ${JSON.stringify(reference.statuses)}`);
    add(`(a) reference, raw pg: ${name} (req/s)`, reference.rps);
    // The reference's own process stands in the `api` group.
    if (port === workPort && workPid) {
      for (const [group, ms] of Object.entries(perOperation(cpuBefore, cpuByGroup({ api: workPid, workers: [] }), reference.rps * o.seconds))) {
        add(`CPU ms per session create, by-hand reference: ${group === 'api' ? 'reference' : group}`, ms);
      }
    }
  }
}

/**
 * (a) at half the max rate, requests evenly spaced (an open loop), with what else happened while it ran:
 * the API's own event-loop delay (prom-client resets it at each scrape), its mark-compacts, and
 * PostgreSQL's checkpoints, so a tail can be placed.
 */
async function halfRateOpenLoop({ o, add, post, apiAdminPort }: PassRun, sessionsUrl: string, halfRate: number): Promise<void> {
  const apiMetrics = async () => (await fetch(`http://127.0.0.1:${apiAdminPort}/metrics`)).text();
  const metric = (text: string, name: string) => Number(new RegExp(`^${name} ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
  const checkpoints = async () =>
    Number((await o.orm.em.getConnection().execute<{ n: string }[]>('select (num_timed + num_requested)::text as n from pg_stat_checkpointer'))[0].n);
  const gcSeconds = (text: string, kind: string) => metric(text, `nodejs_gc_duration_seconds_sum\\{kind="${kind}"\\}`) || 0;
  const metricsBefore = await apiMetrics();
  const before = { checkpoints: await checkpoints(), majorGcs: metric(metricsBefore, 'nodejs_gc_duration_seconds_count\\{kind="major"\\}') };
  const half = await fixedRateLatency({ url: sessionsUrl, ...post, ca: o.ca, rate: halfRate, durationSec: o.seconds });
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
  add(A_HALF_RATE_P99, half.p99);
  // What the percentiles were taken over: a tail from fewer requests than were offered is no tail (bench/verdict.ts).
  add(A_HALF_RATE_COUNTS.offered, half.offered);
  add(A_HALF_RATE_COUNTS.timed, half.timed);
  add('(a) at half rate: sockets the generator opened while measuring', half.socketsOpened);
  add("(a) at half rate: the generator's own event-loop delay, max (ms)", half.generatorDelayMs.max);
  process.stderr.write(
    `(a) at ${halfRate}/s, open loop: p50 ${half.p50} ms, p99 ${half.p99} ms; ${half.socketsOpened} sockets opened; generator loop delay p99 ${half.generatorDelayMs.p99} ms, max ${half.generatorDelayMs.max} ms\n`,
  );
}

/** (a)'s by-hand reference (key lookup, rate count, writes) at the API's half rate, with the same generator: the tail's reference. */
async function referenceOpenLoop({ o, add, post }: PassRun, halfRate: number): Promise<void> {
  const url = `https://127.0.0.1:${o.references.workPort}/`;
  const ref = await fixedRateLatency({ url, ...post, ca: o.ca, rate: halfRate, durationSec: o.seconds });
  if (ref.errors || Object.keys(ref.statuses).some((code) => code !== '201')) {
    process.stderr.write(`(a) reference at half rate answered ${JSON.stringify(ref.statuses)} with ${ref.errors} errors\n`);
  }
  add('(a) reference at half rate, open loop: p50 (ms)', ref.p50);
  add(A_REFERENCE_HALF_RATE_P99, ref.p99);
  add(A_REFERENCE_HALF_RATE_COUNTS.offered, ref.offered);
  add(A_REFERENCE_HALF_RATE_COUNTS.timed, ref.timed);
  add("(a) reference at half rate: the generator's own event-loop delay, max (ms)", ref.generatorDelayMs.max);
  process.stderr.write(`(a) reference at ${halfRate}/s, open loop: p50 ${ref.p50} ms, p99 ${ref.p99} ms; ${ref.socketsOpened} sockets opened\n`);
}

/** Temporal's floors, which (b), (c) and (d) are measured against: F3 starts with no worker, F4 one-activity workflows. */
async function temporalFloors(run: PassRun): Promise<void> {
  const { o, add } = run;
  const cpuBeforeF3 = run.cpuNow();
  const f3 = await floorWorkflowStarts(o.temporalAddress, o.seconds * 1000);
  add('F3 workflow starts, no worker (/s)', f3);
  run.lastF3 = f3;
  run.addCpu('F3 start', cpuBeforeF3, f3 * o.seconds);
  const cpuBeforeF4 = run.cpuNow();
  run.lastF4 = await floorWorkflowCompletions(o.temporalAddress, o.seconds * 1000);
  // F4's worker and client run in this process: its share is the `bench` group's.
  run.addCpu('F4 workflow', cpuBeforeF4, run.lastF4 * o.seconds);
  add('F4 one-activity workflows, 32 in flight (/s)', run.lastF4);
}

/** (b): refunds end to end. */
async function refunds(run: PassRun, round: number): Promise<void> {
  const { o, add } = run;
  // Offered above capacity, or the figure is the offered rate: at least F4 refunds a second (2 × F4
  // transitions, over twice the target), as F4 on a faster machine outgrew the fixed rate.
  const rate = Math.max(o.rates.refund, Math.ceil(run.lastF4));
  add('(b) refunds offered (/s)', rate);
  let cpuBeforeB = run.cpuNow();
  const b = await refundsScenario(run.client, o.orm, run.key, run.businessId, rate, rate * o.seconds, { beforeRefunds: () => void (cpuBeforeB = run.cpuNow()) });
  run.addCpu('refund', cpuBeforeB, b.refunds);
  add('(b) refunds completed end to end (/s)', b.completionsPerSec);
  add('(b) refund state transitions (/s)', b.transitionsPerSec);
  add('(b) refund create → completed p50 (ms)', b.p50Ms);
  add('(b) refund create → completed p99 (ms)', b.p99Ms);
  run.scenarioRuns.push({ round, b });
}

/** (c): webhook deliveries to ten receivers, above capacity and then at a calm rate. */
async function webhookDeliveries(run: PassRun, round: number): Promise<void> {
  const { o, add, hooks } = run;
  const receivers = o.receivers.urls.length;
  const urls = round === 1 ? o.receivers.urls : [];
  // As (b): at least 1.5 × F4 deliveries a second offered (events of one delivery per endpoint each).
  const rate = Math.max(o.rates.event, Math.ceil((run.lastF4 * 1.5) / receivers));
  add('(c) deliveries offered (/s)', rate * receivers);
  const cpuBeforeC = run.cpuNow();
  const c = await webhookScenario(run.client, o.orm, hooks.key, hooks.businessId, urls, rate, rate * o.seconds, receivers);
  // The deliveries' workflows too, which may close after the last POST: their CPU and their rate count.
  const temporal = new Client({ connection: await Connection.connect({ address: o.temporalAddress }) });
  const closedAt = await deliveryWorkflowsClosed(temporal).finally(() => temporal.connection.close());
  run.addCpu('webhook delivery', cpuBeforeC, c.deliveries);
  add('(c) webhook deliveries to 10 receivers (/s)', c.deliveriesPerSec);
  add('(c) delivery workflows closed (/s)', Math.round(((c.deliveries * 1000) / Math.max(1, closedAt - c.firstEventAt)) * 10) / 10);
  add('(c) commit → first attempt p50 (ms)', c.commitToFirstAttemptP50Ms);
  add('(c) commit → first attempt p99 (ms)', c.commitToFirstAttemptP99Ms);
  // At a rate the service keeps up with: the path's own latency, not queueing; beside it its floor, the
  // same path at the same deliveries a second but one per event (each alone), in an order that flips each round.
  const calmRate = o.rates.calmEvent * 10;
  const figures = cFigures(calmRate);
  let calm: Awaited<ReturnType<typeof webhookScenario>> | undefined;
  let floor: Awaited<ReturnType<typeof webhookScenario>> | undefined;
  const calmBursts = async () => {
    calm = await webhookScenario(run.client, o.orm, hooks.key, hooks.businessId, [], o.rates.calmEvent, o.rates.calmEvent * o.seconds, receivers);
    add(figures.p50, calm.commitToFirstAttemptP50Ms);
    add(figures.p99, calm.commitToFirstAttemptP99Ms);
    add(figures.counts.offered, calm.offered);
    add(figures.counts.timed, calm.timed);
    add(`(c) at ${calmRate} deliveries/s: commit → deliveries written, p50 (ms)`, calm.commitToFanOutP50Ms);
    add(`(c) at ${calmRate} deliveries/s: deliveries written → first attempt, p50 (ms)`, calm.fanOutToFirstAttemptP50Ms);
  };
  const floorSingles = async () => {
    const floorUrls = round === 1 ? o.receivers.urls.slice(0, 1) : [];
    floor = await webhookScenario(run.client, o.orm, run.floorHooks.key, run.floorHooks.businessId, floorUrls, calmRate, calmRate * o.seconds, 1);
    add(figures.floorP50, floor.commitToFirstAttemptP50Ms);
    add(figures.floorP99, floor.commitToFirstAttemptP99Ms);
    add(figures.floorCounts.offered, floor.offered);
    add(figures.floorCounts.timed, floor.timed);
    add(`(c) floor at ${calmRate}/s: commit → delivery written, p50 (ms)`, floor.commitToFanOutP50Ms);
    add(`(c) floor at ${calmRate}/s: delivery written → first attempt, p50 (ms)`, floor.fanOutToFirstAttemptP50Ms);
  };
  for (const step of round % 2 ? [calmBursts, floorSingles] : [floorSingles, calmBursts]) {
    await quiet(o.orm);
    await step();
  }
  run.scenarioRuns.push({ round, c, calm, floor });
}

/** (d): withdrawals from 16 clients on one business, beside the balance lock's floor F6. */
async function withdrawals(run: PassRun, round: number): Promise<void> {
  const { o, add } = run;
  add('F6 balance lock txn, 1 client (/s)', await floorBalanceLock(o.databaseUrl, 1, o.seconds * 1000));
  add('F6 balance lock txn, 16 clients (/s)', await floorBalanceLock(o.databaseUrl, 16, o.seconds * 1000));
  // The CPU window is the load alone: not the funding before it, nor the ledger verify after it.
  let cpuBeforeD = run.cpuNow();
  let cpuAfterD = cpuBeforeD;
  const d = await withdrawalsScenario(run.origin, o.orm, run.key, run.businessId, o.seconds, {
    beforeLoad: () => void (cpuBeforeD = run.cpuNow()),
    afterLoad: () => void (cpuAfterD = run.cpuNow()),
  });
  // The withdrawals' creates and their workflows' starts; their processing waits 20 s, past this reading.
  const cost = perOperation(cpuBeforeD, cpuAfterD, d.withdrawals);
  for (const [group, ms] of Object.entries(cost)) add(`CPU ms per withdrawal create: ${group}`, ms);
  add('(d) withdrawals, 16 clients on one business (/s)', d.withdrawalsPerSec);
  // What two cores allow at what a withdrawal costs every process of the run: (d) is held to it, not to
  // F3 (a start alone), which a withdrawal, a start and its own work, cannot reach on the same cores.
  // No CPU read, no bound: NaN, which leaves (d) not measured, where a bound of 0 read as one any rate meets.
  add(D_CPU_BOUND, cost.all > 0 ? Math.round((os.availableParallelism() * 1000) / cost.all) : NaN);
  add('(d) beside the bound: F3, a workflow start alone, this round (/s)', run.lastF3);
  add(D_OVERDRAFTS, d.overdrafts);
  run.scenarioRuns.push({ round, d });
}

/** The groups by the names BENCH_ONLY and run.ts use ('b,c,d' is Temporal's floors). */
export const GROUPS: Record<string, (run: PassRun, round: number) => Promise<void>> = {
  a: sessionCreates,
  'b,c,d': temporalFloors,
  b: refunds,
  c: webhookDeliveries,
  d: withdrawals,
  p: payments,
};
