/** Writes a benchmark's results to bench/results/<date>.json and .md, and prints the table. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyCountsMarkdown, type HistoryCount } from './history-actions.js';
import type { Histogram } from './worker-metrics.js';

type ScheduleToStart = { count: number; meanMs: number; p50AtMostMs: number; p99AtMostMs: number; buckets: Histogram['buckets'] } | null;

export function writeResults(
  results: { date: string; figures: Record<string, number>; targets: { scenario: string; ratio?: number; value?: number; target: string; met: boolean }[]; references?: { name: string; ratio: number }[]; peakRssMb: Record<string, number | null>; conditions: Record<string, unknown>; workerCache?: string; workflowTaskScheduleToStart?: ScheduleToStart; historyCounts?: HistoryCount[] },
  /** Marks a partial run (BENCH_ONLY), which never overwrites the day's full results. */
  suffix: string,
): void {
  const dir = path.join('bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = results.date.slice(0, 10) + suffix;
  const md = [
    `## Benchmark ${results.date}`,
    '',
    '| measure | median |',
    '|---|---|',
    ...Object.entries(results.figures).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '| target | measured | goal | met |',
    '|---|---|---|---|',
    ...results.targets.map((t) => `| ${t.scenario} | ${t.ratio !== undefined ? `${t.ratio.toFixed(2)} × floor` : t.value} | ${t.target} | ${t.met ? 'yes' : 'no'} |`),
    ...(results.references?.length
      ? ['', '| reference (not a target) | × F2 |', '|---|---|', ...results.references.map((r) => `| ${r.name} | ${r.ratio.toFixed(2)} |`)]
      : []),
    '',
    `Peak RSS: API ${results.peakRssMb.api} MB, worker ${results.peakRssMb.worker} MB (workflow cache: ${results.workerCache ?? 'not recorded'}).`,
    ...scheduleToStartLines(results.workflowTaskScheduleToStart),
    ...(results.historyCounts ? ['', ...historyCountsMarkdown(results.historyCounts)] : []),
    '',
    `Conditions: \`${JSON.stringify(results.conditions)}\``,
  ].join('\n');
  writeFileSync(path.join(dir, `${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(dir, `${stamp}.md`), `${md}\n`);
  process.stdout.write(`${md}\n`);
}

function scheduleToStartLines(h: ScheduleToStart | undefined): string[] {
  if (h === undefined) return [];
  if (h === null) return ['', 'Workflow task schedule-to-start: the worker exported no such metric.'];
  const fmt = (ms: number) => (Number.isFinite(ms) ? `≤ ${ms} ms` : '> the largest bucket');
  return [
    '',
    `Workflow task schedule-to-start over the run (worker metrics, ${h.count} tasks): mean ${h.meanMs} ms, p50 ${fmt(h.p50AtMostMs)}, p99 ${fmt(h.p99AtMostMs)} (Prometheus buckets: ${h.buckets.map(([le, n]) => `${le}: ${n}`).join(', ')}).`,
  ];
}
