/** Writes a benchmark's results to bench/results/<date>.json and .md, and prints the tables. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyCountsMarkdown, type HistoryCount } from './history-actions.js';
import { historyMarkdown, type HistorySummary } from './history/report.js';
import type { StartupResult } from './startup.js';
import type { Target } from './targets.js';
import type { Histogram } from './worker-metrics.js';

type ScheduleToStart = { count: number; meanMs: number; p50AtMostMs: number; p99AtMostMs: number; buckets: Histogram['buckets'] } | null;

export interface PassResult {
  name: string;
  temporal: string;
  figures: Record<string, number>;
  samples: Record<string, number[]>;
  targets: Target[];
  peaks: { api: number | null; apiUnderA: number | null; workers: (number | null)[] };
  workerStats: { peakRssMb: number | null; workflowTaskScheduleToStart: ScheduleToStart }[];
  loadAverage: { before: number[]; after: number[] };
  scenarioRuns: Record<string, unknown>[];
}

export function writeResults(
  results: {
    date: string;
    targets: Target[];
    passes: PassResult[];
    conditions: Record<string, unknown>;
    historyCounts?: HistoryCount[];
    history?: HistorySummary;
    startup?: StartupResult;
  },
  /** Marks a partial run (BENCH_ONLY), which never overwrites the day's full results. */
  suffix: string,
): void {
  const dir = path.join('bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = results.date.slice(0, 10) + suffix;
  const { passes } = results;
  const names = [...new Set(passes.flatMap((p) => Object.keys(p.figures)))];
  // The median, and beside it each round's figure when there were several.
  const cell = (p: PassResult, k: string) => {
    const v = p.figures[k];
    if (v === undefined) return '–';
    const rounds = p.samples[k] ?? [];
    return rounds.length > 1 ? `${v} (${rounds.join(', ')})` : String(v);
  };
  const md = [
    `## Benchmark ${results.date}`,
    '',
    ...(passes.length
      ? [
          `| measure: median (each round) | ${passes.map((p) => p.name).join(' | ')} |`,
          `|---|${passes.map(() => '---|').join('')}`,
          ...names.map((k) => `| ${k} | ${passes.map((p) => cell(p, k)).join(' | ')} |`),
          '',
        ]
      : []),
    '| Temporal | measure | measured | reference | ratio: median of the rounds [lowest–highest round] (each round: measured / reference = ratio) | goal | verdict |',
    '|---|---|---|---|---|---|---|',
    ...results.targets.map(targetRow),
    '',
    ...(results.startup ? [startupLine(results.startup), ''] : []),
    ...passes.flatMap((p) => [
      `**${p.name}**: peak RSS API ${p.peaks.api} MB (under (a) alone: ${p.peaks.apiUnderA === null ? '(a) not run' : `${p.peaks.apiUnderA} MB`}), worker${p.peaks.workers.length > 1 ? 's' : ''} ${p.peaks.workers.join(' and ')} MB; load average ${p.loadAverage.before.join(', ')} before, ${p.loadAverage.after.join(', ')} after.`,
      ...p.workerStats.map((w, i) => scheduleToStartLine(w.workflowTaskScheduleToStart, p.workerStats.length > 1 ? i + 1 : undefined)),
      '',
    ]),
    ...(results.history ? [...historyMarkdown(results.history), ''] : []),
    ...(results.historyCounts ? historyCountsMarkdown(results.historyCounts) : []),
    '',
    `Conditions: \`${JSON.stringify(results.conditions)}\``,
  ].join('\n');
  writeFileSync(path.join(dir, `${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(dir, `${stamp}.md`), `${md}\n`);
  process.stdout.write(`${md}\n`);
}

/**
 * One goal's row: the median ratio with the rounds' spread beside it, and the verdict with why it is not
 * met. "within noise" marks a goal whose rounds fall on both sides of it, so a reader does not take a
 * median a hair either side of the goal for a settled answer.
 */
export function targetRow(t: Target): string {
  const shown = (x: number | null) => (x === null ? '–' : String(x));
  const median = t.ratio === undefined ? '' : `${t.ratio}${t.spread ? ` [${t.spread.min}–${t.spread.max}]` : ''}`;
  const rounds = t.rounds ? `(${t.rounds.map((r) => (r.ratio === null ? `${shown(r.measured)} / ${shown(r.reference)}: none` : `${r.measured} / ${r.reference} = ${r.ratio}`)).join('; ')})` : '';
  const ratio = [median, rounds].filter(Boolean).join(' ');
  const verdict = t.verdict === 'met' ? 'met' : `**${t.verdict}**${t.why ? `: ${t.why}` : ''}`;
  const noise = t.withinNoise ? '; within noise' : '';
  return `| ${t.temporal} | ${t.metric} | ${shown(t.measured)} | ${t.reference ?? ''} | ${ratio} | ${t.target} | ${verdict}${noise} |`;
}

/** (s)'s figures, run by run: the first is the cold compile cache's. */
function startupLine(s: StartupResult): string {
  const each = Object.entries(s.samples).map(([k, xs]) => `${k.replace(/^\(s\) /, '')}: ${xs.join(', ')}`);
  return `**start-up** (${s.runs} runs each, the first with an empty compile cache, a new container's start, not judged; load average ${s.loadAverage.before.join(', ')} before, ${s.loadAverage.after.join(', ')} after): ${each.join('; ')}.`;
}

function scheduleToStartLine(h: ScheduleToStart, worker?: number): string {
  const who = worker ? ` (worker ${worker})` : '';
  if (h === null) return `Workflow task schedule-to-start${who}: the worker exported no such metric.`;
  const fmt = (ms: number) => (Number.isFinite(ms) ? `≤ ${ms} ms` : '> the largest bucket');
  return `Workflow task schedule-to-start${who} over the pass (worker metrics, ${h.count} tasks): mean ${h.meanMs} ms, p50 ${fmt(h.p50AtMostMs)}, p99 ${fmt(h.p99AtMostMs)} (Prometheus buckets: ${h.buckets.map(([le, n]) => `${le}: ${n}`).join(', ')}).`;
}
