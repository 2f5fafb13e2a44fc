/**
 * The history benchmark's targets and table. A cost is flat when an operation's p50 on the business with
 * the long history is within 1.5 × its p50 on the small one; a read must also answer within 50 ms at
 * p99 on the long history.
 */
import type { Target } from '../targets.js';
import type { OperationResult } from './measure.js';

export const RATIO_GOAL = 1.5;
export const READ_P99_GOAL_MS = 50;
const TEMPORAL = 'dev server';

const round2 = (x: number) => Math.round(x * 100) / 100;
const count = (n: number) => n.toLocaleString('en-US');

/** Two targets per read (the p50 ratio, the p99 at the long history), one per write (the ratio); scenarios `history: …`. */
export function historyTargets(operations: OperationResult[], sessionsA: number, sessionsB: number): Target[] {
  return operations.flatMap((op): Target[] => {
    const ratio = op.b.p50 > 0 ? round2(op.a.p50 / op.b.p50) : 0;
    const scenario = `history: ${op.name}`;
    const targets: Target[] = [
      {
        temporal: TEMPORAL,
        scenario,
        metric: `${op.name}: p50 at ${count(sessionsA)} sessions (ms)`,
        reference: `p50 at ${count(sessionsB)} sessions: ${op.b.p50} ms`,
        target: `≤ ${RATIO_GOAL} × reference`,
        measured: op.a.p50,
        ratio,
        met: ratio <= RATIO_GOAL,
      },
    ];
    if (op.kind === 'read') {
      targets.push({
        temporal: TEMPORAL,
        scenario,
        metric: `${op.name}: p99 at ${count(sessionsA)} sessions (ms)`,
        target: `≤ ${READ_P99_GOAL_MS} ms`,
        measured: op.a.p99,
        met: op.a.p99 <= READ_P99_GOAL_MS,
      });
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
      const ratio = op.b.p50 > 0 ? round2(op.a.p50 / op.b.p50) : 0;
      const mark = (ok: boolean, text: string) => (ok ? text : `**${text}**`);
      const p99 = op.kind === 'read' ? (op.a.p99 <= READ_P99_GOAL_MS ? 'yes' : '**no**') : '–';
      return `| ${op.name} | ${op.a.p50} | ${op.a.p99} | ${op.b.p50} | ${op.b.p99} | ${mark(ratio <= RATIO_GOAL, String(ratio))} | ${p99} | ${op.a.n} |`;
    }),
  ];
}
