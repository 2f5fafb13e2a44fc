/**
 * The chaos run's report: the checks it holds, the seed and schedule heading every report and failure,
 * the counts, and the text an operator reads, with each 503 of a breach beside its API's log line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { processLogDir } from '../support/stack-processes.js';
import type { History } from './client.js';
import type { Flows } from './load.js';
import { createRng } from './prng.js';
import { drawSchedule, formatSchedule, type PlannedFault } from './schedule.js';

/** What names a run: its seed and its length. */
export interface RunName {
  seed: number;
  minutes: number;
}

export const CHECKS = ['answers', 'server errors', 'charges', 'refunds and payouts', 'settled', 'ledger', 'webhooks', 'replays', 'processes', 'API document'] as const;
export type Check = (typeof CHECKS)[number];

export interface ChaosReport {
  seed: number;
  minutes: number;
  command: string;
  schedule: PlannedFault[];
  /** What was done, when: each fault as it happened (or why it was skipped). */
  executed: string[];
  counts: { sessions: number; pays: number; refunds: number; withdrawals: number; requests: number; statuses: Record<string, number> };
  healSeconds: number;
  healed: boolean;
  /** What the run saw that breaks no invariant but is worth a reader's eye (a lost admitted update, paid again). */
  notes: string[];
  totalSeconds: number;
  problems: Record<Check, string[]>;
  logDir: string;
  ok: boolean;
}

export const chaosCommand = (o: RunName) => `npm run chaos -- --seed ${o.seed} --minutes ${o.minutes}`;

/** The head of every report and failure: the seed, how to run it again, and its schedule. */
export function chaosHeader(o: RunName, schedule = drawSchedule(createRng(o.seed).fork('schedule'), o.minutes * 60_000)): string {
  return `chaos seed ${o.seed}, ${o.minutes} min (run it again: ${chaosCommand(o)}); ${schedule.length} faults:\n${formatSchedule(schedule)}`;
}

/**
 * Each 503's log line from its API process (found by its request id in the processes' log files): the
 * error that made the answer, beside the breach it belongs to.
 */
export function withApiLogLines(problems: string[]): string[] {
  if (!problems.length) return problems;
  const dir = processLogDir();
  const logs = readdirSync(dir)
    .filter((f) => f.startsWith('chaos-api-'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .flat();
  return problems.map((p) => {
    const ids = [...p.matchAll(/-> 503 [^\n]*\[(req_[0-9a-f]+)\]/g)].map((m) => m[1]);
    const lines = ids.flatMap((id) => logs.filter((l) => l.includes(id) && /"level":(40|50)|err/i.test(l)).slice(0, 1));
    return lines.length ? `${p}${lines.map((l) => `\n      api log: ${l.slice(0, 600)}`).join('')}` : p;
  });
}

export function counts(history: History, flows: Flows): ChaosReport['counts'] {
  const statuses: Record<string, number> = {};
  for (const c of history.calls) statuses[c.status || 'none'] = (statuses[c.status || 'none'] ?? 0) + 1;
  return {
    sessions: flows.sessions.length,
    pays: flows.sessions.reduce((n, s) => n + s.pays.length, 0),
    refunds: flows.refunds.length,
    withdrawals: flows.withdrawals.length,
    requests: history.calls.length,
    statuses,
  };
}

export function formatReport(r: ChaosReport): string {
  const statuses = Object.entries(r.counts.statuses).map(([s, n]) => `${s}: ${n}`).join(', ');
  const lines = [
    `Chaos ${r.ok ? 'PASSED' : 'FAILED'}: ${chaosHeader(r, r.schedule)}`,
    'What happened:',
    ...r.executed.map((l) => `  ${l}`),
    `Load: ${r.counts.sessions} sessions (${r.counts.pays} pay calls), ${r.counts.refunds} refunds, ${r.counts.withdrawals} withdrawals; ${r.counts.requests} requests (${statuses})`,
    `Heal: ${r.healed ? 'settled' : 'NOT settled'} in ${r.healSeconds.toFixed(0)} s; ${r.totalSeconds.toFixed(0)} s in all. Process logs: ${r.logDir}`,
    ...(r.notes.length ? ['Notes:', ...r.notes.map((n) => `  - ${n}`)] : []),
    ...CHECKS.map((c) => `  ${c.padEnd(20)} ${r.problems[c].length ? `${r.problems[c].length} BREACHES` : 'held'}`),
  ];
  for (const c of CHECKS) {
    if (!r.problems[c].length) continue;
    lines.push(`${c}:`, ...r.problems[c].slice(0, 30).map((p) => `  - ${p}`));
    if (r.problems[c].length > 30) lines.push(`  … and ${r.problems[c].length - 30} more`);
  }
  return lines.join('\n');
}
