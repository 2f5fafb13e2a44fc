/**
 * The soak's money checks, once the traffic has stopped and in-flight work has settled: each business's
 * balances row equals the sums of its ledger entries, the operator's `ledger verify` (run as the admin
 * CLI process, as an operator would) is clean, and every withdrawal and refund carries exactly the
 * postings its status calls for.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { moneyProblems } from '../faults/support/money.js';
import { sql } from '../support/payments.js';
import { balanceOf, entrySums, testMode } from '../support/seed.js';
import { pollUntil } from './context.js';
import type { SoakStack } from './stack.js';

const ACCOUNTS = { available: 'available', reserved: 'reserved', pendingWithdrawal: 'pending_withdrawal', refundsInFlight: 'refunds_in_flight' } as const;

/** Work still under way (withdrawals, refunds, payments), waited for at most `timeoutMs` (the machine may be loaded); what is left, if any. */
export async function settle(stack: SoakStack, timeoutMs = 180_000): Promise<string[]> {
  const ids = stack.businesses.map((b) => b.id);
  const unsettled = async () =>
    sql<{ what: string; n: number }>(
      stack.base,
      `select 'withdrawals ' || status as what, count(*)::int as n from withdrawals where business_id in (?) and status in ('pending', 'processing') group by status
       union all select 'refunds ' || status, count(*)::int from refunds where business_id in (?) and status in ('pending', 'processing') group by status
       union all select 'sessions processing', count(*)::int from checkout_sessions where business_id in (?) and status = 'processing' having count(*) > 0`,
      [ids, ids, ids],
    );
  const { value } = await pollUntil(unsettled, (rows) => rows.length === 0, timeoutMs, 1_000);
  return value.map((r) => `${r.n} ${r.what} after ${timeoutMs / 1000} s`);
}

/** Each business's cached balances against the sums of its ledger entries, account by account. */
export function balanceProblems(stack: SoakStack): Promise<string[]> {
  return ledgerBalanceProblems(stack.base.orm, stack.businesses.map((b) => b.id));
}

/** The same for any businesses' test-mode balances (the chaos run's too). */
export async function ledgerBalanceProblems(orm: MikroORM, businessIds: string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const id of businessIds) {
    const owner = testMode(id);
    const [balance, sums] = await Promise.all([balanceOf(orm, owner), entrySums(orm, owner)]);
    for (const [field, account] of Object.entries(ACCOUNTS)) {
      const cached = balance[field as keyof typeof balance];
      const summed = sums[account] ?? 0;
      if (cached !== summed) problems.push(`business ${id}: balance ${account} is ${cached} but its ledger entries sum to ${summed}`);
      if (cached < 0) problems.push(`business ${id}: ${account} is negative (${cached})`);
    }
  }
  return problems;
}

/** `npm run admin -- ledger verify` against the soak's database, as a process of its own. */
export function adminLedgerVerify(databaseUrl: string): Promise<{ exitCode: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'main', 'cli.ts'), 'ledger', 'verify'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', ALLOW_TEST_ENV: 'true', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  return new Promise((resolve) => child.once('exit', (exitCode) => resolve({ exitCode, output: output.trim() })));
}

/**
 * Each event reaches a receiver path once: every receiver here answers 2xx (some with a NUL byte in the
 * body), so a second POST of one event to one path is a delivery sent twice. Delivery is at
 * least once only where an attempt's outcome was lost: one whose activity timed out after its POST (a
 * loaded machine) may be posted again, so only duplicates beyond the worker's timeouts are problems.
 */
export function duplicateDeliveries(stack: SoakStack): string[] {
  const seen = new Map<string, number>();
  for (const r of stack.receiver.received) {
    const key = `${r.path} ${String(r.headers['x-webhook-id'])}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const twice = [...seen].filter(([, n]) => n > 1).map(([key, n]) => `event ${key.split(' ')[1]} posted ${n} times to ${key.split(' ')[0]}`);
  // Timeouts only: an attempt that failed for any other reason (its record not stored, say) is a bug.
  const lostAttempts = stack.processes.worker.output().split('Activity task timed out').length - 1;
  return twice.length > lostAttempts ? twice.map((line) => `${line} (${lostAttempts} attempts lost by the worker in all)`) : [];
}

export interface MoneyReport {
  unsettled: string[];
  balanceProblems: string[];
  /** verifyLedger's problems and postings that do not match a status. */
  ledgerProblems: string[];
  adminVerify: { exitCode: number | null; output: string };
  /** Webhook events posted twice to one receiver path. */
  duplicateDeliveries: string[];
}

export async function checkMoney(stack: SoakStack): Promise<MoneyReport> {
  const unsettled = await settle(stack);
  return {
    unsettled,
    balanceProblems: await balanceProblems(stack),
    ledgerProblems: await moneyProblems(stack.base.orm),
    adminVerify: await adminLedgerVerify(stack.base.databaseUrl),
    duplicateDeliveries: duplicateDeliveries(stack),
  };
}
