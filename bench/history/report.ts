/**
 * The history benchmark's targets and table. A cost is flat when an operation's p50 on the business with
 * the long history is within 1.5 × its p50 on the small one; a read must also answer within 50 ms at
 * p99 on the long history.
 */
import type { Target } from '../targets.js';
import { judgeAtMost, judgeRatio, pairRounds, type Judged } from '../verdict.js';
import type { OperationResult } from './measure.js';

export const RATIO_GOAL = 1.5;
export const READ_P99_GOAL_MS = 50;
const TEMPORAL = 'dev server';

const count = (n: number) => n.toLocaleString('en-US');
const finite = (x: number) => (Number.isFinite(x) ? x : null);

/**
 * An operation's p50 at the long history over its p50 at the short one, judged as every ratio goal is
 * (bench/verdict.ts), as one round: a p50 of 0 ms, or none (no sample), is no measurement, where a ratio
 * set to 0 had called it met.
 */
export function p50Ratio(op: OperationResult): Judged {
  const p50 = (m: OperationResult['a']) => (m.n ? m.p50 : NaN);
  // One round: no spread to show, and nothing for noise to straddle.
  const { spread: _spread, withinNoise: _noise, ...judged } = judgeRatio(pairRounds({ measured: [p50(op.a)], reference: [p50(op.b)], rounds: 1, latency: true }), 'atMost', RATIO_GOAL);
  return judged;
}

/** Two targets per read (the p50 ratio, the p99 at the long history), one per write (the ratio); scenarios `history: …`. */
export function historyTargets(operations: OperationResult[], sessionsA: number, sessionsB: number): Target[] {
  return operations.flatMap((op): Target[] => {
    const scenario = `history: ${op.name}`;
    const row = (metric: string, target: string, measured: number, { verdict, ...judged }: Judged, reference?: string): Target => ({
      temporal: TEMPORAL,
      scenario,
      metric,
      ...(reference ? { reference } : {}),
      target,
      measured: finite(measured),
      ...judged,
      verdict,
      met: verdict === 'met',
    });
    const targets = [row(`${op.name}: p50 at ${count(sessionsA)} sessions (ms)`, `≤ ${RATIO_GOAL} × reference`, op.a.p50, p50Ratio(op), `p50 at ${count(sessionsB)} sessions: ${op.b.p50} ms`)];
    if (op.kind === 'read') {
      const p99 = op.a.n ? op.a.p99 : NaN;
      targets.push(row(`${op.name}: p99 at ${count(sessionsA)} sessions (ms)`, `≤ ${READ_P99_GOAL_MS} ms`, p99, judgeAtMost(p99, READ_P99_GOAL_MS, 'ms', 'p99')));
    }
    return targets;
  });
}

export interface HistorySummary {
  date: string;
  config: { sessionsA: number; sessionsB: number };
  seed: { msA: number; msB: number; vacuumAnalyzeMs: number; ledgerVerifyMs: number };
  loadAverage: Record<string, number[]>;
  operations: OperationResult[];
}

/** The readable table: each operation's p50 and p99 on both businesses, the ratio and whether the targets are met. */
export function historyMarkdown(h: HistorySummary): string[] {
  const a = count(h.config.sessionsA);
  const b = count(h.config.sessionsB);
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  return [
    `## History benchmark ${h.date}`,
    '',
    `Seeded A (${a} paid sessions) in ${seconds(h.seed.msA)}, B (${b}) in ${seconds(h.seed.msB)}; vacuum analyze ${seconds(h.seed.vacuumAnalyzeMs)}; ` +
      `ledger verify clean in ${seconds(h.seed.ledgerVerifyMs)}. Load average ${Object.entries(h.loadAverage).map(([k, v]) => `${k} ${v.join(', ')}`).join('; ')}.`,
    '',
    `| operation | p50 at ${a} (ms) | p99 at ${a} (ms) | p50 at ${b} (ms) | p99 at ${b} (ms) | p50 ratio (≤ ${RATIO_GOAL}) | p99 ≤ ${READ_P99_GOAL_MS} ms | samples |`,
    '|---|---|---|---|---|---|---|---|',
    ...h.operations.map((op) => {
      const [p50, p99] = historyTargets([op], h.config.sessionsA, h.config.sessionsB);
      const ratio = p50.verdict === 'not measured' ? `**not measured**: ${p50.why}` : p50.met ? String(p50.ratio) : `**${p50.ratio}**`;
      const tail = !p99 ? '–' : p99.met ? 'yes' : p99.verdict === 'missed' ? '**no**' : `**not measured**: ${p99.why}`;
      return `| ${op.name} | ${op.a.p50} | ${op.a.p99} | ${op.b.p50} | ${op.b.p99} | ${ratio} | ${tail} | ${op.a.n} |`;
    }),
  ];
}
