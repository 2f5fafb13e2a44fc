/**
 * The soak (docs/soak.md): a bounded, self-stopping run of mixed traffic against the real processes,
 * then the checks that say the service held. `npm run soak` runs it for SOAK_SECONDS (test/soak/run.ts);
 * test/faults/soak.test.ts runs a short one inside the test suite. Both call `runSoak`.
 */
import { processLogDir } from '../support/stack-processes.js';
import { hostileLoop } from './hostile.js';
import { createContext } from './context.js';
import { checkMoney, settle, type MoneyReport } from './money-checks.js';
import { paymentsLoop } from './payments.js';
import { readsLoop } from './reads.js';
import { startSoakStack, type SoakStack } from './stack.js';
import { sweepEveryApi } from './sweep.js';
import { webhooksLoop } from './webhooks.js';
import { withdrawalsLoop } from './withdrawals.js';
import type { Failure } from './stats.js';

export interface SoakOptions {
  /** How long the mixed traffic runs. */
  seconds: number;
  businesses: number;
  /** Loops of each kind (payments, withdrawals, webhooks, reads, hostile) per business. */
  concurrency: number;
  /** The traffic also stops once this many requests were sent. */
  maxRequests: number;
}

/** Settings from the environment (SOAK_SECONDS, SOAK_BUSINESSES, SOAK_CONCURRENCY, SOAK_MAX_REQUESTS). */
export function soakOptionsFromEnv(env: NodeJS.ProcessEnv, defaults: SoakOptions): SoakOptions {
  const read = (name: string, fallback: number, max: number) => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be a whole number from 1 to ${max}, not ${env[name]}`);
    return value;
  };
  return {
    seconds: read('SOAK_SECONDS', defaults.seconds, 6 * 3600),
    businesses: read('SOAK_BUSINESSES', defaults.businesses, 50),
    concurrency: read('SOAK_CONCURRENCY', defaults.concurrency, 10),
    maxRequests: read('SOAK_MAX_REQUESTS', defaults.maxRequests, 10_000_000),
  };
}

export interface SoakReport extends MoneyReport {
  options: SoakOptions;
  trafficSeconds: number;
  totalSeconds: number;
  requests: number;
  histogram: Record<string, number>;
  serverErrorCount: number;
  /** Each kept 5xx with the API process's log lines for its request id. */
  serverErrors: (Failure & { log: string[] })[];
  unexpectedCount: number;
  unexpected: Failure[];
  transportErrors: number;
  documentProblemCount: number;
  documentProblems: string[];
  sweepProblems: string[];
  logDir: string;
  ok: boolean;
}

const LOOPS = [paymentsLoop, withdrawalsLoop, webhooksLoop, readsLoop, hostileLoop];

/** The API process's log lines that name a request id (the access line and any error line). */
function logLines(stack: SoakStack, api: string, requestId: string | null): string[] {
  if (!requestId) return [];
  const proc = stack.processes.apis[api === 'api-2' ? 1 : 0];
  return proc
    .output()
    .split('\n')
    .filter((line) => line.includes(requestId))
    .map((line) => line.slice(0, 2000));
}

export async function runSoak(options: SoakOptions, onProgress: (line: string) => void = () => {}): Promise<SoakReport> {
  const started = Date.now();
  onProgress(`starting 2 API processes and a worker; ${options.businesses} businesses`);
  const stack = await startSoakStack(options.businesses);
  try {
    const { context, drain } = createContext(stack, options);
    onProgress(`traffic for ${options.seconds} s (at most ${options.maxRequests} requests), ${LOOPS.length * options.concurrency} loops per business`);
    const trafficStarted = Date.now();
    const ticker = setInterval(() => onProgress(`${Math.round((Date.now() - trafficStarted) / 1000)} s: ${stack.stats.requests} requests, 5xx ${stack.stats.serverErrorCount}`), 30_000);
    try {
      const loops = stack.businesses.flatMap((biz) => LOOPS.flatMap((loop) => Array.from({ length: options.concurrency }, () => loop(context, biz))));
      await Promise.all(loops.map((l) => l.catch((err) => stack.stats.problem(`traffic loop threw: ${(err as Error).stack ?? err}`))));
    } finally {
      clearInterval(ticker);
    }
    const trafficSeconds = (Date.now() - trafficStarted) / 1000;
    onProgress(`traffic stopped after ${trafficSeconds.toFixed(0)} s; waiting for flows still under way`);
    await drain();
    // The worker's backlog first, so the sweep's own payments are not queued behind the traffic's.
    await settle(stack);
    onProgress('sweeping every route on each API process');
    const sweepProblems = await sweepEveryApi(stack);
    onProgress('settling, then checking balances against the ledger and running ledger verify');
    const money = await checkMoney(stack);
    const s = stack.stats;
    const report: SoakReport = {
      options,
      trafficSeconds,
      totalSeconds: (Date.now() - started) / 1000,
      requests: s.requests,
      histogram: s.histogram(),
      serverErrorCount: s.serverErrorCount,
      serverErrors: s.serverErrors.map((f) => ({ ...f, log: logLines(stack, f.api, f.requestId) })),
      unexpectedCount: s.unexpectedCount,
      unexpected: s.unexpected,
      transportErrors: s.transportErrors,
      documentProblemCount: s.documentProblemCount,
      documentProblems: s.documentProblems,
      sweepProblems,
      ...money,
      logDir: processLogDir(),
      ok: false,
    };
    report.ok =
      report.serverErrorCount === 0 &&
      report.unexpectedCount === 0 &&
      report.transportErrors === 0 &&
      report.documentProblemCount === 0 &&
      report.sweepProblems.length === 0 &&
      report.unsettled.length === 0 &&
      report.balanceProblems.length === 0 &&
      report.ledgerProblems.length === 0 &&
      report.duplicateDeliveries.length === 0 &&
      report.adminVerify.exitCode === 0;
    return report;
  } finally {
    await stack.stop();
  }
}
