/** Writes a benchmark's results to bench/results/<date>.json and .md, and prints the table. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeResults(
  results: { date: string; figures: Record<string, number>; targets: { scenario: string; ratio?: number; value?: number; target: string; met: boolean }[]; references?: { name: string; ratio: number }[]; peakRssMb: Record<string, number | null>; conditions: Record<string, unknown> },
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
    `Peak RSS: API ${results.peakRssMb.api} MB, worker ${results.peakRssMb.worker} MB.`,
    '',
    `Conditions: \`${JSON.stringify(results.conditions)}\``,
  ].join('\n');
  writeFileSync(path.join(dir, `${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(dir, `${stamp}.md`), `${md}\n`);
  process.stdout.write(`${md}\n`);
}
