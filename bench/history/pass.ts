/**
 * The history benchmark (`npm run bench:history`, or `history` in BENCH_ONLY): business A with
 * BENCH_HISTORY_SESSIONS paid sessions of history (1,000,000) and business B with BENCH_HISTORY_SESSIONS_B
 * (10,000), seeded straight into PostgreSQL (seed.ts) and checked by `ledger verify`; then the API and a
 * worker from the production build, and each operation's p50 and p99 on both, through the HTTP API.
 * A flat cost has the same p50 on both.
 */
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { retentionScheduleId } from '../../contracts/workflow-ids.js';
import { createApiKey } from '../../src/modules/businesses/index.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { jsonClient, type JsonClient } from '../open-loop.js';
import { benchBusiness, spawnApi, spawnWorker } from '../pass.js';
import { stopService } from '../stack.js';
import { measure, type OperationResult } from './measure.js';
import { historyTargets } from './report.js';
import { BALANCE_CALLS_PER_KEY, createRefund, createSession, cursorOfPage50, paySession, readCall, READS, recover, type HistoryBusiness } from './operations.js';
import { recoveryFailedFor, seedHistory, tableSizes, vacuumAnalyze } from './seed.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const historyConfig = () => ({
  sessionsA: num('BENCH_HISTORY_SESSIONS', 1_000_000),
  sessionsB: num('BENCH_HISTORY_SESSIONS_B', 10_000),
  /** The recovery endpoint's deliveries on A; B's endpoint has the same share of its events. */
  recoveryDeliveries: num('BENCH_HISTORY_RECOVERY_DELIVERIES', 100_000),
  readSamples: num('BENCH_HISTORY_SAMPLES', 200),
  writeSamples: num('BENCH_HISTORY_WRITE_SAMPLES', 100),
  recoveryCalls: num('BENCH_HISTORY_RECOVERY_CALLS', 10),
  warmup: num('BENCH_HISTORY_WARMUP', 10),
  maxSecondsPerOperation: num('BENCH_HISTORY_OP_SECONDS', 180),
});

export interface HistoryOptions {
  dist: string;
  appEnv: Record<string, string>;
  temporalAddress: string;
  orm: MikroORM;
  ca: Buffer;
  /** Four local receivers answering 200: each business's two endpoints point at them. */
  receivers: { urls: string[] };
  track: (child: Promise<ChildProcess>) => Promise<ChildProcess>;
}

const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`history: ${line}\n`);

type HistoryConfig = ReturnType<typeof historyConfig>;

export async function runHistory(o: HistoryOptions) {
  const config = historyConfig();
  const loadAverage: Record<string, number[]> = { before: load() };
  const recoveryFailed = recoveryFailedFor(Math.min(config.sessionsA, config.sessionsB));
  const balanceKeys = Math.ceil((config.warmup + config.readSamples) / BALANCE_CALLS_PER_KEY);
  const pair = await seedBoth(o, config, recoveryFailed, balanceKeys);
  const checked = await vacuumAndVerify(o.orm);
  const tables = await tableSizes(o.orm.em.fork());
  loadAverage.afterSeed = load();

  const worker = await spawnWorker(o);
  await pauseRetention(o.temporalAddress, o.appEnv.TEMPORAL_TASK_QUEUE ?? 'payments');
  const api = await spawnApi(o);
  const client = jsonClient(`https://127.0.0.1:${api.port}`, o.ca);
  for (const b of pair) b.cursor50 = await cursorOfPage50(client, b);
  loadAverage.beforeMeasuring = load();
  const operations = await measureOperations(o.orm, config, client, pair, { loadAverage, stopWorker: () => stopService(worker.child) });
  await stopService(api.child);
  loadAverage.after = load();

  const [a, b] = pair.map((p) => p.seeded);
  return {
    targets: historyTargets(operations, config.sessionsA, config.sessionsB),
    history: {
      date: new Date().toISOString(),
      config,
      sizes: Object.fromEntries(
        pair.map(({ label, seeded: s }) => [label, { businessId: s.businessId, sessions: s.sessions, withdrawals: s.withdrawals, endpoints: s.endpoints, recoveryFailedInWindow: s.recoveryFailedInWindow, searchEmail: s.searchEmail }]),
      ),
      seed: { msA: a.ms, msB: b.ms, ...checked, stepsMs: { A: a.stepsMs, B: b.stepsMs } },
      tables,
      recovery: { since: '13 days before the call', eventsPerCall: recoveryFailed, worker: 'stopped, so recovered deliveries stay pending; failed again between calls' },
      balance: `${balanceKeys} test keys per business, each used for at most ${BALANCE_CALLS_PER_KEY} calls (GET /balance allows 30 a minute per key)`,
      loadAverage,
      operations,
    },
  };
}

/** Businesses A and B, each with its balance keys and its history seeded (the recovery endpoint's share of deliveries to scale). */
async function seedBoth(o: HistoryOptions, config: HistoryConfig, recoveryFailed: number, balanceKeys: number): Promise<[HistoryBusiness, HistoryBusiness]> {
  const webhookEncryptionKey = Buffer.from(o.appEnv.WEBHOOK_ENCRYPTION_KEY, 'base64');
  const businesses: HistoryBusiness[] = [];
  for (const [i, label, sessions] of [[0, 'A', config.sessionsA], [1, 'B', config.sessionsB]] as const) {
    const { business, key } = await benchBusiness(o.orm, `History ${label} (${sessions.toLocaleString('en-US')} sessions)`);
    const keys = [];
    for (let k = 0; k < balanceKeys; k++) keys.push((await createApiKey(o.orm.em.fork(), business.id, 'test', 'full')).secret);
    log(`seeding ${label}: ${sessions.toLocaleString('en-US')} paid sessions`);
    const history = await seedHistory(o.orm.em.fork(), { businessId: business.id, livemode: false }, {
      sessions,
      recoveryDeliveries: Math.max(recoveryFailed * 2, Math.round((config.recoveryDeliveries * sessions) / config.sessionsA)),
      recoveryFailed,
      endpointUrls: { main: o.receivers.urls[2 * i], recovery: o.receivers.urls[2 * i + 1] },
      webhookEncryptionKey,
      log,
    });
    log(`seeded ${label} in ${history.ms} ms`);
    businesses.push({ label, key, balanceKeys: keys, seeded: history, cursor50: '', created: [], paid: [] });
  }
  return businesses as [HistoryBusiness, HistoryBusiness];
}

/** The seeded tables vacuumed and analyzed, and the ledger verified: a history that fails `ledger verify` ends the run. */
async function vacuumAndVerify(orm: MikroORM): Promise<{ vacuumAnalyzeMs: number; ledgerVerifyMs: number }> {
  const vacuumMs = await vacuumAnalyze(orm.em.fork());
  log(`vacuum analyze: ${vacuumMs} ms`);
  const verifyStarted = performance.now();
  const verified = await verifyLedger(orm.em.fork());
  const verifyMs = Math.round(performance.now() - verifyStarted);
  log(`ledger verify: ${verified.ok ? 'clean' : `${verified.problems.length} problems`} in ${verifyMs} ms`);
  if (!verified.ok) throw new Error(`ledger verify found problems in the seeded history:\n${verified.problems.slice(0, 20).join('\n')}`);
  return { vacuumAnalyzeMs: vacuumMs, ledgerVerifyMs: verifyMs };
}

/** Every read, then the writes (each making what the next needs), then the webhook recovery with the worker stopped. */
async function measureOperations(
  orm: MikroORM,
  config: HistoryConfig,
  client: JsonClient,
  pair: [HistoryBusiness, HistoryBusiness],
  run: { loadAverage: Record<string, number[]>; stopWorker: () => Promise<void> },
): Promise<OperationResult[]> {
  const operations: OperationResult[] = [];
  const reads = { samples: config.readSamples, warmup: config.warmup, maxSeconds: config.maxSecondsPerOperation };
  const writes = { samples: config.writeSamples, warmup: Math.min(config.warmup, 5), maxSeconds: config.maxSecondsPerOperation };
  for (const read of READS) operations.push(await measure(read.name, 'read', pair, readCall(client, read), reads));
  run.loadAverage.afterReads = load();
  // Each write makes what the next one needs: fresh sessions to pay, then paid sessions to refund.
  operations.push(await measure('session create', 'write', pair, createSession(client), writes));
  operations.push(await measure('pay', 'write', pair, paySession(client), writes));
  await settled(orm, pair, pair.flatMap((b) => b.paid));
  operations.push(await measure('refund create', 'write', pair, createRefund(client), writes));
  await settled(orm, pair, []);
  // Recovery last, with the worker stopped: the deliveries each call re-sends then stay as the call left them,
  // and are failed again before the next call, which then has the same work to do.
  await run.stopWorker();
  const since = new Date(Date.now() - 13 * 86_400_000).toISOString();
  const recoveries = { samples: config.recoveryCalls, warmup: 1, maxSeconds: config.maxSecondsPerOperation, after: (b: HistoryBusiness) => failResent(orm, b) };
  operations.push(await measure('webhook recovery', 'write', pair, recover(client, since), recoveries));
  return operations;
}

/**
 * The worker starts the hourly retention schedule; a run crossing an hour of the measurement would delete
 * the seeded events older than 30 days while they are read. Paused, the reads see the whole two years
 * of events (the worst case: retention would leave a month of them).
 */
async function pauseRetention(address: string, taskQueue: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await new Client({ connection }).schedule.getHandle(retentionScheduleId(taskQueue)).pause('history benchmark: every seeded event is read');
  } finally {
    await connection.close();
  }
}

/**
 * Waits until the outbox is empty and the businesses' refunds, deliveries and the given payments have
 * finished: the next measurement starts on a quiet service, with every paid session `completed`.
 */
async function settled(orm: MikroORM, pair: HistoryBusiness[], sessions: string[]): Promise<void> {
  const endpoints = pair.flatMap((b) => [b.seeded.endpoints.main, b.seeded.endpoints.recovery]);
  const ids = pair.map((b) => b.seeded.businessId);
  const deadline = Date.now() + 600_000;
  for (;;) {
    const [row] = await orm.em.getConnection().execute<{ busy: number }[]>(
      `select ((select count(*) from outbox where dispatched_at is null)
         + (select count(*) from refunds where business_id in (?) and status in ('pending', 'processing'))
         + (select count(*) from checkout_sessions where id in (?) and status = 'processing')
         + (select count(*) from webhook_deliveries where endpoint_id in (?) and status in ('pending', 'delivering')))::int as busy`,
      [ids, sessions.length ? sessions : ['00000000-0000-0000-0000-000000000000'], endpoints],
    );
    if (row.busy === 0) return;
    if (Date.now() > deadline) throw new Error(`the service did not settle: ${row.busy} rows still in flight`);
    await sleep(250);
  }
}

/** Fails again the deliveries a recovery call re-sent (their worker is stopped), so the next call re-sends the same events. */
async function failResent(orm: MikroORM, b: HistoryBusiness): Promise<void> {
  await orm.em.getConnection().execute(
    `update webhook_deliveries set status = 'failed', last_status_code = 500, last_error = 'HTTP 500', completed_at = now(), updated_at = now()
     where endpoint_id = ? and status = 'pending' and generation > 0`,
    [b.seeded.endpoints.recovery],
  );
}
