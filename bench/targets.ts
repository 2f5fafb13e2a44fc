/**
 * The performance targets and the worker's memory (docs/benchmark.md), computed from one pass's rounds.
 * A latency or throughput goal is a ratio to a reference measured in the same round, beside it, at the
 * same offered rate: on two shared cores an absolute figure says more about the machine than the code.
 * Each round gives its own ratio, and the goal is judged on their median; every round's stays in the record.
 */
export interface Target {
  /** Which pass: `dev server`, `real server, 1 worker`, … */
  temporal: string;
  scenario: string;
  metric: string;
  /** The figure of the same pass the ratio is taken to. */
  reference?: string;
  target: string;
  /** The median over the rounds of the figure measured. */
  measured: number;
  /** The median over the rounds of measured ÷ reference (each round's own pair), where the target is a ratio. */
  ratio?: number;
  /** Each round's figures, in order, where the target is a ratio. */
  rounds?: { measured: number; reference: number; ratio: number }[];
  met: boolean;
}

const F4 = 'F4 one-activity workflows, 32 in flight (/s)';
export const A_REFERENCE = '(a) reference, raw pg: key lookup + rate count + writes (req/s)';
export const A_HALF_RATE_P99 = '(a) at half rate, open loop: p99 (ms)';
export const A_REFERENCE_HALF_RATE_P99 = '(a) reference at half rate, open loop: p99 (ms)';
export const D_CPU_BOUND = "(d) CPU bound: the machine's cores ÷ CPU per withdrawal, all processes (/s)";
/** (c)'s figures at its calm rate (`rate` deliveries a second) and their floor's: one delivery per event at that rate. */
export const cFigures = (rate: number) => ({
  p50: `(c) commit → first attempt at ${rate} deliveries/s, p50 (ms)`,
  p99: `(c) commit → first attempt at ${rate} deliveries/s, p99 (ms)`,
  floorP50: `(c) floor: commit → first attempt, one delivery per event at ${rate}/s, p50 (ms)`,
  floorP99: `(c) floor: commit → first attempt, one delivery per event at ${rate}/s, p99 (ms)`,
});

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The median; of an even count, the mean of the middle two. */
export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function computeTargets(
  temporal: string,
  samples: Record<string, number[]>,
  peaks: { apiUnderA: number | null; workers: (number | null)[] },
  calmRate: number,
): Target[] {
  const targets: Target[] = [];
  /**
   * measured ÷ reference, round by round (the two were measured in the same round, side by side), judged
   * on the median: `atLeast` a throughput, `atMost` a latency. `extra` must hold too (no overdraft).
   */
  const ratio = (scenario: string, metric: string, measuredName: string, referenceName: string, bound: 'atLeast' | 'atMost', goal: number, extra = true) => {
    const measured = samples[measuredName];
    const reference = samples[referenceName];
    if (!measured?.length || !reference?.length) return; // a scenario this pass did not run
    const rounds = measured.slice(0, reference.length).map((m, i) => ({ measured: m, reference: reference[i], ratio: reference[i] > 0 ? round2(m / reference[i]) : NaN }));
    const r = round2(median(rounds.map((x) => x.ratio)));
    const met = Number.isFinite(r) && (bound === 'atLeast' ? r >= goal : r <= goal) && extra;
    targets.push({ temporal, scenario, metric, reference: referenceName, target: `${bound === 'atLeast' ? '≥' : '≤'} ${goal} × reference`, measured: median(measured), ratio: r, rounds, met });
  };
  const atMost = (scenario: string, metric: string, measured: number | null | undefined, bound: number, unit: string) => {
    if (measured === undefined || measured === null || !Number.isFinite(measured)) return;
    targets.push({ temporal, scenario, metric, target: `≤ ${bound} ${unit}`, measured, met: measured <= bound });
  };
  ratio('(a)', '(a) create session, max (req/s)', '(a) create session, max (req/s)', A_REFERENCE, 'atLeast', 0.95);
  ratio('(a)', '(a) p99 at half of max rate, open loop (ms)', A_HALF_RATE_P99, A_REFERENCE_HALF_RATE_P99, 'atMost', 1.5);
  ratio('(b)', '(b) refund state transitions (/s)', '(b) refund state transitions (/s)', F4, 'atLeast', 0.95);
  ratio('(c)', '(c) webhook deliveries (/s)', '(c) webhook deliveries to 10 receivers (/s)', F4, 'atLeast', 0.95);
  const c = cFigures(calmRate * 10);
  ratio('(c)', `(c) commit → first attempt p50 at ${calmRate * 10} deliveries/s (ms)`, c.p50, c.floorP50, 'atMost', 1.5);
  ratio('(c)', `(c) commit → first attempt p99 at ${calmRate * 10} deliveries/s (ms)`, c.p99, c.floorP99, 'atMost', 1.5);
  const overdrafts = samples['(d) overdrafts'] ?? [];
  ratio('(d)', '(d) hot-business withdrawals (/s), zero overdrafts', '(d) withdrawals, 16 clients on one business (/s)', D_CPU_BOUND, 'atLeast', 0.9, overdrafts.every((n) => n === 0));
  atMost('(a)', 'API peak RSS under (a) (MB)', peaks.apiUnderA, 250, 'MB');
  peaks.workers.forEach((mb, i) => atMost('worker', `worker${peaks.workers.length > 1 ? ` ${i + 1}` : ''} peak RSS over the pass (MB)`, mb, 600, 'MB'));
  return targets;
}
