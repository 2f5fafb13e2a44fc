import { historyMarkdown, historyTargets, p50Ratio } from '../../bench/history/report.js';
import type { OperationResult } from '../../bench/history/measure.js';
import { percentile } from '../../bench/open-loop.js';
import { targetRow } from '../../bench/report.js';
import type { Target } from '../../bench/targets.js';

const op = (a: Partial<OperationResult['a']>, b: Partial<OperationResult['b']> = {}, kind: 'read' | 'write' = 'read'): OperationResult => ({
  name: 'list sessions',
  kind,
  a: { n: 100, p50: 6, p99: 12, max: 20, ...a },
  b: { n: 100, p50: 5, p99: 10, max: 15, ...b },
});

describe('a percentile of no sample (bench/open-loop.ts)', () => {
  it('is no number, not a 0 that reads as the fastest latency', () => {
    expect(percentile([], 99)).toBeNaN();
    expect(percentile([3, 1, 2], 50)).toBe(2);
  });
});

describe('the history goals (bench/history/report.ts)', () => {
  it('judges the p50 ratio to the short history, and a read’s p99', () => {
    const [p50, p99] = historyTargets([op({})], 1_000_000, 10_000);
    expect(p50).toMatchObject({ ratio: 1.2, verdict: 'met', met: true });
    expect(p99).toMatchObject({ measured: 12, verdict: 'met' });
    expect(p50Ratio(op({ p50: 8 }))).toMatchObject({ verdict: 'missed', ratio: 1.6, why: 'median 1.6 > 1.5' });
  });

  it('marks a ratio to a p50 of 0 not measured, where it had been a ratio of 0 and met', () => {
    expect(p50Ratio(op({}, { p50: 0 }))).toEqual({ verdict: 'not measured', why: 'round 1: reference 0, which no measurement gives' });
  });

  it('marks an operation without samples not measured, its p99 too', () => {
    const [p50, p99] = historyTargets([op({ n: 0, p50: NaN, p99: NaN })], 1_000_000, 10_000);
    expect(p50).toMatchObject({ measured: null, verdict: 'not measured', met: false, why: 'round 1: no figure' });
    expect(p99).toMatchObject({ measured: null, verdict: 'not measured', why: 'no p99' });
  });

  it('shows the verdict in the table', () => {
    const summary = { date: 'd', config: { sessionsA: 1_000_000, sessionsB: 10_000 }, seed: { msA: 1, msB: 1, vacuumAnalyzeMs: 1, ledgerVerifyMs: 1 }, loadAverage: {} };
    const rows = historyMarkdown({ ...summary, operations: [op({}, { p50: 0 }), op({ p50: 8, p99: 60 })] });
    expect(rows.at(-2)).toContain('| **not measured**: round 1: reference 0, which no measurement gives | yes |');
    expect(rows.at(-1)).toContain('| **1.6** | **no** |');
  });
});

describe("a goal's row in the results (bench/report.ts)", () => {
  const base: Target = { temporal: 'dev server', scenario: '(a)', metric: '(a) p99', reference: 'ref', target: '≤ 1.5 × reference', measured: 12, verdict: 'met', met: true };

  it('gives the median with the rounds’ spread beside it, and marks a goal whose rounds straddle it', () => {
    const rounds = [
      { measured: 12, reference: 10, ratio: 1.2 },
      { measured: 30, reference: 15, ratio: 2 },
    ];
    const row = targetRow({ ...base, ratio: 1.6, spread: { min: 1.2, max: 2 }, withinNoise: true, rounds, verdict: 'missed', met: false, why: 'median 1.6 > 1.5' });
    expect(row).toBe('| dev server | (a) p99 | 12 | ref | 1.6 [1.2–2] (12 / 10 = 1.2; 30 / 15 = 2) | ≤ 1.5 × reference | **missed**: median 1.6 > 1.5; within noise |');
  });

  it('says why a goal is not measured, and which round gave no ratio', () => {
    const rounds = [{ measured: null, reference: 15, ratio: null, why: 'round 1: no figure' }];
    const row = targetRow({ ...base, measured: null, rounds, verdict: 'not measured', met: false, why: 'round 1: no figure' });
    expect(row).toBe('| dev server | (a) p99 | – | ref | (– / 15: none) | ≤ 1.5 × reference | **not measured**: round 1: no figure |');
  });
});
