/** The soak's report as an operator reads it: the figures first, then each problem found, precisely. */
import type { SoakReport } from './soak.js';

function section(title: string, count: number, lines: string[]): string[] {
  if (!count && !lines.length) return [];
  const more = count > lines.length ? [`  … and ${count - lines.length} more`] : [];
  return [`${title} (${count}):`, ...lines.map((l) => `  - ${l}`), ...more];
}

export function formatSummary(r: SoakReport): string {
  const o = r.options;
  const statuses = Object.entries(r.histogram)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  const lines = [
    `Soak ${r.ok ? 'PASSED' : 'FAILED'}`,
    `  requests:     ${r.requests} in ${r.trafficSeconds.toFixed(0)} s of traffic (${(r.requests / Math.max(1, r.trafficSeconds)).toFixed(1)}/s); ${r.totalSeconds.toFixed(0)} s in all`,
    `  businesses:   ${o.businesses}, ${o.concurrency} loop(s) of each kind per business; 2 API processes, 1 worker`,
    `  statuses:     ${statuses}`,
    `  5xx:          ${r.serverErrorCount}`,
    `  unexpected:   ${r.unexpectedCount} answers or outcomes; ${r.transportErrors} without an answer`,
    `  API document: ${r.documentProblemCount} answers it does not describe`,
    `  final sweep:  ${r.sweepProblems.length ? `${r.sweepProblems.length} routes answered wrongly` : 'every route answered correctly on both API processes'}`,
    `  settled:      ${r.unsettled.length ? r.unsettled.join('; ') : 'no withdrawal, refund or payment left in flight'}`,
    `  balances:     ${r.balanceProblems.length ? `${r.balanceProblems.length} differ from the ledger` : 'each business equals its ledger'}`,
    `  ledger:       ${r.adminVerify.exitCode === 0 && !r.ledgerProblems.length ? 'ledger verify clean' : 'ledger verify FAILED'} (${r.adminVerify.output.split('\n')[0]})`,
    `  webhooks:     ${r.duplicateDeliveries.length ? `${r.duplicateDeliveries.length} events posted twice to one endpoint` : 'no event posted twice to one endpoint'}`,
    `  logs:         ${r.logDir}`,
    ...section('5xx answers', r.serverErrorCount, r.serverErrors.map((f) => `${f.api} ${f.method} ${f.path} -> ${f.status} ${f.answer}\n      log: ${f.log.join('\n      log: ') || '(none found)'}`)),
    ...section('Unexpected', r.unexpectedCount, r.unexpected.map((f) => `${f.why}: ${f.api} ${f.method} ${f.path} -> ${f.status} (request ${f.requestId ?? '-'}) ${f.answer}`)),
    ...section('API document', r.documentProblemCount, r.documentProblems),
    ...section('Final sweep', r.sweepProblems.length, r.sweepProblems),
    ...section('Balances', r.balanceProblems.length, r.balanceProblems),
    ...section('Ledger', r.ledgerProblems.length, r.ledgerProblems),
    ...section('Webhook deliveries', r.duplicateDeliveries.length, r.duplicateDeliveries.slice(0, 50)),
  ];
  if (r.adminVerify.exitCode !== 0) lines.push(`admin ledger verify exited ${r.adminVerify.exitCode}:`, r.adminVerify.output);
  return lines.join('\n');
}
