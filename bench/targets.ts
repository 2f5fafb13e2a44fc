/**
 * The performance targets and the worker's memory (docs/benchmark.md), computed against one pass's medians.
 * Each is a ratio to a figure measured in the same run (the machine is noisy) or an absolute bound.
 */
export interface Target {
  /** Which pass: `dev server`, `real server, 1 worker`, … */
  temporal: string;
  scenario: string;
  metric: string;
  /** The figure of the same pass the ratio is taken to. */
  reference?: string;
  target: string;
  measured: number;
  /** measured ÷ the reference, where the target is a ratio. */
  ratio?: number;
  met: boolean;
}

const F3 = 'F3 workflow starts, no worker (/s)';
const F4 = 'F4 one-activity workflows, 32 in flight (/s)';
const REFERENCE = '(a) reference, raw pg: key lookup + rate count + writes (req/s)';
const round2 = (x: number) => Math.round(x * 100) / 100;

export function computeTargets(
  temporal: string,
  f: Record<string, number>,
  peaks: { apiUnderA: number | null; workers: (number | null)[] },
  calmRate: number,
): Target[] {
  const targets: Target[] = [];
  const ratio = (scenario: string, metric: string, measuredName: string, referenceName: string, goal: number, extra = true) => {
    const measured = f[measuredName];
    const reference = f[referenceName];
    if (measured === undefined || reference === undefined) return; // a scenario this pass did not run
    const r = reference > 0 ? round2(measured / reference) : 0;
    targets.push({ temporal, scenario, metric, reference: referenceName, target: `≥ ${goal} × reference`, measured, ratio: r, met: r >= goal && extra });
  };
  const atMost = (scenario: string, metric: string, measured: number | null | undefined, bound: number, unit: string) => {
    if (measured === undefined || measured === null || !Number.isFinite(measured)) return;
    targets.push({ temporal, scenario, metric, target: `≤ ${bound} ${unit}`, measured, met: measured <= bound });
  };
  ratio('(a)', '(a) create session, max (req/s)', '(a) create session, max (req/s)', REFERENCE, 0.85);
  atMost('(a)', '(a) p99 at half of max rate, open loop (ms)', f['(a) at half rate, open loop: p99 (ms)'], 10, 'ms');
  ratio('(b)', '(b) refund state transitions (/s)', '(b) refund state transitions (/s)', F4, 0.95);
  ratio('(c)', '(c) webhook deliveries (/s)', '(c) webhook deliveries to 10 receivers (/s)', F4, 0.95);
  atMost('(c)', `(c) commit → first attempt p50 at ${calmRate * 10} deliveries/s (ms)`, f[`(c) commit → first attempt at ${calmRate * 10} deliveries/s, p50 (ms)`], 50, 'ms');
  ratio('(d)', '(d) hot-business withdrawals (/s), zero overdrafts', '(d) withdrawals, 16 clients on one business (/s)', F3, 0.9, f['(d) overdrafts'] === 0);
  atMost('(a)', 'API peak RSS under (a) (MB)', peaks.apiUnderA, 250, 'MB');
  peaks.workers.forEach((mb, i) => atMost('worker', `worker${peaks.workers.length > 1 ? ` ${i + 1}` : ''} peak RSS over the pass (MB)`, mb, 600, 'MB'));
  return targets;
}
