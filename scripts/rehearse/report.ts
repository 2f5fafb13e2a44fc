/** The rehearsal's figures as an operator reads them, then every problem found, precisely. */
import type { Checks } from './checks.js';
import type { Stats } from './client.js';
import type { LoadFigures } from './load.js';

export interface Step {
  what: string;
  downMs: number;
  upMs: number;
  clean?: boolean;
  requestsDuring: number;
  /** Lines printed under the step (the Temporal cluster's faults: shard split, time to recover). */
  note?: string[];
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const list = (m: Map<string | number, number> | Record<string, number>) =>
  (m instanceof Map ? [...m.entries()] : Object.entries(m))
    .sort(([a], [b]) => String(a).localeCompare(String(b), 'en', { numeric: true }))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ') || 'none';

export function formatReport(r: {
  root: string;
  stats: Stats;
  figures: LoadFigures;
  steps: Step[];
  checks: Checks;
  trafficSeconds: number;
  totalSeconds: number;
  uiOrigin: string;
}): { ok: boolean; text: string } {
  const { stats, figures: f, checks } = r;
  const unclean = r.steps.filter((x) => x.clean === false).map((x) => `${x.what}: needed SIGKILL after its grace period`);
  const problems = [...stats.failures, ...unclean, ...checks.problems];
  const ok = problems.length === 0;
  const retries = [...stats.retries.values()].reduce((a, b) => a + b, 0);
  const lines = [
    `Production rehearsal ${ok ? 'PASSED' : 'FAILED'}`,
    `  requests:   ${stats.requests} in ${r.trafficSeconds.toFixed(0)} s of load (${(stats.requests / Math.max(1, r.trafficSeconds)).toFixed(1)}/s); ${r.totalSeconds.toFixed(0)} s in all`,
    `  answers:    ${list(stats.byStatus)} (every HTTP answer, retries included; 0 = no answer); each checked against the API document, the proxy's own 503 and 408 included`,
    `  retries:    ${retries} (${list(stats.retries)}); ${stats.retriedThenSucceeded} requests succeeded on a retry with their key`,
    `  failures:   ${stats.failures.length} (requests that ended in an undocumented answer or gave up, and answers the API document does not describe)`,
    `  load:       ${f.payments} pays (${f.payAnswersLost} whose retry found the session no longer payable), ${f.refunds} refunds (${f.refundsRefused} refused for balance), ${f.withdrawals} withdrawals (${f.withdrawalsRefused} refused for balance), ${f.cancels} cancels (${f.cancelsTooLate} too late)`,
    `  restarts:`,
    ...r.steps.flatMap((x) => [`    ${x.what.padEnd(58)} down ${s(x.downMs).padStart(6)}, up ${s(x.upMs).padStart(6)}, ${x.requestsDuring} requests meanwhile`, ...(x.note ?? []).map((n) => `      ${n}`)]),
    `  settled:    in ${checks.settleSeconds.toFixed(0)} s after the load`,
    ...Object.entries(checks.counts).map(([table, c]) => `    ${table.padEnd(20)} ${list(c)}`),
    `  ledger:     ${checks.ledgerVerify.exitCode === 0 ? 'ledger verify clean' : 'ledger verify FAILED'} (${checks.ledgerVerify.output.split('\n')[0]})`,
    `  Web UI:     ${r.uiOrigin} (loopback only; no other address answered)`,
    `  logs:       ${r.root}/logs`,
  ];
  if (problems.length) lines.push(`Problems (${problems.length}):`, ...problems.slice(0, 60).map((p) => `  - ${p}`));
  if (problems.length > 60) lines.push(`  … and ${problems.length - 60} more`);
  return { ok, text: lines.join('\n') };
}
