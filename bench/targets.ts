/**
 * The performance targets and the worker's memory (docs/benchmark.md), computed from one pass's rounds.
 * A latency or throughput goal is a ratio to a reference measured in the same round, beside it, at the
 * same offered rate: on two shared cores an absolute figure says more about the machine than the code.
 * Each round gives its own ratio, and the goal is judged on their median; every round's stays in the
 * record, with their spread beside the median. How a row is judged: bench/verdict.ts.
 */
import { judgeAtMost, judgeRatio, median, pairRounds, zeroInEveryRound, type Bound, type Counts, type Judged, type Round, type Verdict } from './verdict.js';

export { median } from './verdict.js';

export interface Target {
  /** Which pass: `dev server`, `real server, 1 worker`, … */
  temporal: string;
  scenario: string;
  metric: string;
  /** The figure of the same pass the ratio is taken to. */
  reference?: string;
  target: string;
  /** The median over the rounds of the figure measured; null when no round measured it. */
  measured: number | null;
  /** The median over the rounds of measured ÷ reference (each round's own pair), where the target is a ratio and every round gave one. */
  ratio?: number;
  /** The lowest and highest round's ratio, beside the median. */
  spread?: { min: number; max: number };
  /** The rounds straddle the goal: some meet it, some miss it. The median still decides. */
  withinNoise?: boolean;
  /** Each round's figures, in order, where the target is a ratio. */
  rounds?: Round[];
  verdict: Verdict;
  /** `verdict === 'met'`, as the results files before the verdict had it. */
  met: boolean;
  /** Why the goal is missed or not measured. */
  why?: string;
}

/** What a pass ran: the scenarios it was asked for (a, b, c, d) and how many rounds. */
export interface PassPlan {
  scenarios: string[];
  rounds: number;
}

const F4 = 'F4 one-activity workflows, 32 in flight (/s)';
export const A_REFERENCE = '(a) reference, raw pg: key lookup + rate count + writes (req/s)';
export const A_HALF_RATE_P99 = '(a) at half rate, open loop: p99 (ms)';
export const A_REFERENCE_HALF_RATE_P99 = '(a) reference at half rate, open loop: p99 (ms)';
export const D_CPU_BOUND = "(d) CPU bound: the machine's cores ÷ CPU per withdrawal, all processes (/s)";
export const D_OVERDRAFTS = '(d) overdrafts';

/** The figures that say how many requests a latency's sample set was offered and how many it timed. */
export const countFigures = (set: string, noun: string) => ({ offered: `${set}: ${noun} offered`, timed: `${set}: ${noun} timed` });
export const A_HALF_RATE_COUNTS = countFigures('(a) at half rate, open loop', 'requests');
export const A_REFERENCE_HALF_RATE_COUNTS = countFigures('(a) reference at half rate, open loop', 'requests');

/** (p)'s figures: payments flat out, their CPU bound, and the pay call's latency at half rate beside its floor's. */
export const P = {
  flatOut: '(p) payments completed, flat out (/s)',
  cpuBound: "(p) CPU bound: the machine's cores ÷ CPU per payment, all processes (/s)",
  p50: '(p) pay at half rate, open loop: p50 (ms)',
  p99: '(p) pay at half rate, open loop: p99 (ms)',
  counts: countFigures('(p) pay at half rate, open loop', 'requests'),
  floorP50: '(p) floor at half rate, open loop: p50 (ms)',
  floorP99: '(p) floor at half rate, open loop: p99 (ms)',
  floorCounts: countFigures('(p) floor at half rate, open loop', 'requests'),
};

/** (c)'s figures at its calm rate (`rate` deliveries a second) and their floor's: one delivery per event at that rate. */
export const cFigures = (rate: number) => ({
  p50: `(c) commit → first attempt at ${rate} deliveries/s, p50 (ms)`,
  p99: `(c) commit → first attempt at ${rate} deliveries/s, p99 (ms)`,
  floorP50: `(c) floor: commit → first attempt, one delivery per event at ${rate}/s, p50 (ms)`,
  floorP99: `(c) floor: commit → first attempt, one delivery per event at ${rate}/s, p99 (ms)`,
  counts: countFigures(`(c) at ${rate} deliveries/s`, 'deliveries'),
  floorCounts: countFigures(`(c) floor at ${rate}/s`, 'deliveries'),
});

interface RatioGoal {
  scenario: string;
  metric: string;
  measured: string;
  reference: string;
  bound: Bound;
  goal: number;
  latency?: { measured: ReturnType<typeof countFigures>; reference: ReturnType<typeof countFigures> };
  /** A count that must be zero in every round (overdrafts). */
  zero?: string;
}

/**
 * Every goal of the scenarios the pass ran has a row, whatever was measured: a missing figure makes the
 * row `not measured`, never drops it. A scenario the pass was not asked to run (BENCH_ONLY, the real
 * server's passes) has none: the plan says so, not the absence of its figures.
 */
export function computeTargets(
  temporal: string,
  samples: Record<string, number[]>,
  peaks: { apiUnderA: number | null; workers: (number | null)[] },
  calmRate: number,
  plan: PassPlan,
): Target[] {
  const ran = (scenario: string) => plan.scenarios.includes(scenario.replace(/[()]/g, ''));
  const row = (scenario: string, metric: string, target: string, measured: number | null, judged: Judged, extra: Partial<Target> = {}): Target => {
    const { verdict, ...rest } = judged;
    return { temporal, scenario, metric, ...extra, target, measured, ...rest, verdict, met: verdict === 'met' };
  };
  const counts = (names: ReturnType<typeof countFigures>): Counts => ({ offered: samples[names.offered], timed: samples[names.timed] });
  const ratio = (g: RatioGoal): Target => {
    const rounds = pairRounds({
      measured: samples[g.measured],
      reference: samples[g.reference],
      rounds: plan.rounds,
      latency: g.latency !== undefined,
      counts: g.latency && { measured: counts(g.latency.measured), reference: counts(g.latency.reference) },
    });
    const fault = g.zero === undefined ? undefined : zeroInEveryRound(samples[g.zero], plan.rounds, g.zero.replace(/^\(\w\) /, ''));
    const measured = rounds.flatMap((r) => (r.measured === null ? [] : [r.measured]));
    const target = `${g.bound === 'atLeast' ? '≥' : '≤'} ${g.goal} × reference`;
    return row(g.scenario, g.metric, target, measured.length ? median(measured) : null, judgeRatio(rounds, g.bound, g.goal, fault), { reference: g.reference, rounds });
  };
  const c = cFigures(calmRate * 10);
  const aTail = { measured: A_HALF_RATE_COUNTS, reference: A_REFERENCE_HALF_RATE_COUNTS };
  const cCalm = { measured: c.counts, reference: c.floorCounts };
  const pHalf = { measured: P.counts, reference: P.floorCounts };
  const goals: RatioGoal[] = [
    { scenario: '(a)', metric: '(a) create session, max (req/s)', measured: '(a) create session, max (req/s)', reference: A_REFERENCE, bound: 'atLeast', goal: 0.95 },
    { scenario: '(a)', metric: '(a) p99 at half of max rate, open loop (ms)', measured: A_HALF_RATE_P99, reference: A_REFERENCE_HALF_RATE_P99, bound: 'atMost', goal: 1.5, latency: aTail },
    { scenario: '(b)', metric: '(b) refund state transitions (/s)', measured: '(b) refund state transitions (/s)', reference: F4, bound: 'atLeast', goal: 0.95 },
    { scenario: '(c)', metric: '(c) webhook deliveries (/s)', measured: '(c) webhook deliveries to 10 receivers (/s)', reference: F4, bound: 'atLeast', goal: 0.95 },
    { scenario: '(c)', metric: `(c) commit → first attempt p50 at ${calmRate * 10} deliveries/s (ms)`, measured: c.p50, reference: c.floorP50, bound: 'atMost', goal: 1.5, latency: cCalm },
    { scenario: '(c)', metric: `(c) commit → first attempt p99 at ${calmRate * 10} deliveries/s (ms)`, measured: c.p99, reference: c.floorP99, bound: 'atMost', goal: 1.5, latency: cCalm },
    { scenario: '(d)', metric: '(d) hot-business withdrawals (/s), zero overdrafts', measured: '(d) withdrawals, 16 clients on one business (/s)', reference: D_CPU_BOUND, bound: 'atLeast', goal: 0.9, zero: D_OVERDRAFTS },
    { scenario: '(p)', metric: '(p) payments flat out (/s)', measured: P.flatOut, reference: P.cpuBound, bound: 'atLeast', goal: 0.9 },
    { scenario: '(p)', metric: '(p) pay p50 at half of max rate, open loop (ms)', measured: P.p50, reference: P.floorP50, bound: 'atMost', goal: 1.5, latency: pHalf },
    { scenario: '(p)', metric: '(p) pay p99 at half of max rate, open loop (ms)', measured: P.p99, reference: P.floorP99, bound: 'atMost', goal: 1.5, latency: pHalf },
  ];
  const targets = goals.filter((g) => ran(g.scenario)).map(ratio);
  const rss = (scenario: string, metric: string, mb: number | null, bound: number) =>
    row(scenario, metric, `≤ ${bound} MB`, Number.isFinite(mb) ? mb : null, judgeAtMost(mb, bound, 'MB', 'peak RSS'));
  if (ran('(a)')) targets.push(rss('(a)', 'API peak RSS under (a) (MB)', peaks.apiUnderA, 250));
  peaks.workers.forEach((mb, i) => targets.push(rss('worker', `worker${peaks.workers.length > 1 ? ` ${i + 1}` : ''} peak RSS over the pass (MB)`, mb, 600)));
  return targets;
}
