/**
 * `npm run fuzz`: Schemathesis against a running service, driven by the API document.
 *
 * Starts embedded PostgreSQL, a Temporal dev server, the HTTPS API on free ports and a worker, makes a business
 * with a test key and a withdrawal method, seeds what the operations act on (scripts/fuzz/seed.ts: paid
 * and pending sessions, disputes, refunds, withdrawals, webhook deliveries), writes the run's
 * configuration (scripts/fuzz/schemathesis.toml and the seeded ids) into the report directory, then runs
 * `schemathesis run <origin>/api/openapi.json --checks all` with that key. Exits with Schemathesis's
 * code: non-zero on any 5xx, any answer that breaks the document, any other failed check, or any of the
 * warnings the configuration makes failures; and non-zero too when the ledger does not verify afterwards.
 *
 * A worker runs, so a pay is answered with its outcome rather than `processing` after its 10 s bound, and
 * refunds, withdrawals and disputes move on as they do in service. Its webhook attempts go nowhere: the
 * fuzzer registers endpoints at whatever URLs it draws, and no traffic may leave this machine, so every
 * receiver is one that takes the delivery at once without a connection (`acceptEveryDelivery`).
 *
 * Settings (environment): FUZZ_MAX_EXAMPLES (per operation, default 60), FUZZ_SEED, FUZZ_PHASES (default
 * examples,coverage,fuzzing,stateful; the stateful sequences follow the document's links), FUZZ_REPORT_DIR
 * (default .data/fuzz), and arguments after `npm run fuzz --` go to Schemathesis as they are.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../src/dev/free-port.js';
import { startFuzzServers } from './fuzz/servers.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { connectTemporalFor, startApi, startWorker } from '../src/main/runtime.js';
import type { PostOutcome } from '../src/modules/webhooks/index.js';
import { createBusiness, DEMO_BUSINESS } from '../src/modules/businesses/index.js';
import { verifyLedger } from '../src/modules/ledger/index.js';
import { addWithdrawalMethod } from '../src/modules/withdrawals/index.js';
import { createHttpClient } from '../test/support/http.js';
import { FUZZ_WALLET, fuzzConfig, rotations, seed } from './fuzz/seed.js';

const schemathesis = process.env.SCHEMATHESIS_BIN ?? 'schemathesis';
const maxExamples = process.env.FUZZ_MAX_EXAMPLES ?? '60';
const phases = process.env.FUZZ_PHASES ?? 'examples,coverage,fuzzing,stateful';
const reportDir = path.resolve(process.env.FUZZ_REPORT_DIR ?? '.data/fuzz');

async function main(): Promise<number> {
  const infra = await startFuzzServers();
  const stops: (() => Promise<unknown>)[] = [() => infra.stop()];
  try {
    const config = loadConfig({
      NODE_ENV: 'development',
      DATABASE_URL: infra.databaseUrl,
      TEMPORAL_ADDRESS: infra.temporalAddress,
      TEMPORAL_TASK_QUEUE: 'payments-fuzz',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      ADMIN_PORT: String(await freePort()),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
      WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
      PAYLOAD_ENCRYPTION_KEYS: `fuzz-1:${Buffer.alloc(32, 8).toString('base64')}`,
      // The public routes' budget per client address (pay among them) far above the fuzzer's pace, as the
      // business's is below: every request comes from 127.0.0.1, and at the default 120 a minute most
      // pay calls were answered 429. Pay's own 10 a minute per session still applies.
      PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_FAILURES_PER_MINUTE: '0',
      // The seeded withdrawals stay pending for the whole run, however slow the machine: at the default
      // 10 minutes a busy run's cancels met them completed, and every cancel of a phase was refused.
      WITHDRAWAL_PROCESSING_DELAY: '3h',
    });
    const log = createLogger(config.logLevel);
    const temporal = await connectTemporalFor(config);
    stops.unshift(() => temporal.connection.close());
    const tls = { cert: readFileSync(infra.tls.certFile), key: readFileSync(infra.tls.keyFile) };
    const api = await startApi({ config, orm: infra.orm, temporal, log, tls });
    stops.unshift(() => api.close());
    const worker = await startWorker({ config, orm: infra.orm, temporal, log, webhookTransport: acceptEveryDelivery });
    stops.unshift(worker.stop);

    // Enterprise terms with a budget far above the fuzzer's pace, so that it explores the operations
    // rather than the 429 (the per-operation limits of pay and balance still apply, and are documented).
    const em = infra.orm.em.fork();
    const { business, keys } = await createBusiness(em, {
      ...DEMO_BUSINESS,
      name: 'Fuzz business',
      rateLimitTier: 'enterprise',
      rateLimitPerMinute: 1_000_000,
      rateLimitBurst: 1_000_000,
    });
    await addWithdrawalMethod(em, business.id, 'wallet', { walletEmail: FUZZ_WALLET });
    const test = keys.find((k) => k.mode === 'test')!;
    const testKey = test.secret;
    const http = createHttpClient(api.origin, readFileSync(infra.tls.caFile));
    const seeded = await seed({ orm: infra.orm, config, business, keyId: test.id, testKey, http }).finally(() => http.close());

    // The run's configuration: the project's, and the ids just seeded (scripts/fuzz/seed.ts).
    mkdirSync(reportDir, { recursive: true });
    const configFile = path.join(reportDir, 'schemathesis.toml');
    writeFileSync(configFile, readFileSync('scripts/fuzz/schemathesis.toml', 'utf8') + fuzzConfig(seeded));
    const args = [
      '--config-file', configFile,
      'run',
      `${api.origin}/api/openapi.json`,
      '--checks', 'all',
      '--header', `Authorization: Bearer ${testKey}`,
      '--tls-verify', infra.tls.caFile,
      '--max-examples', maxExamples,
      '--phases', phases,
      // One worker, no draw that depends on time or on answers (schemathesis.toml): a seed then
      // generates the same cases on an idle machine and on a busy one. Two workers interleave the
      // operations by timing, and what one operation's answers fed another's draws followed that order.
      '--workers', '1',
      '--suppress-health-check', 'too_slow',
      // The pay call waits up to 10 s for the payment's outcome, and up to 20 s more while Temporal holds
      // its update admitted and no worker has taken it (schemathesis.toml).
      '--request-timeout', '40',
      '--generation-database', 'none',
      '--report', 'junit',
      '--report-dir', reportDir,
      '--no-color',
      ...(process.env.FUZZ_SEED ? ['--seed', process.env.FUZZ_SEED] : []),
      ...process.argv.slice(2),
    ];
    console.error(`fuzz: ${schemathesis} ${args.join(' ').replace(testKey, 'mp_test_…')}`);
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(schemathesis, args, {
        stdio: 'inherit',
        // Schemathesis keeps a cache directory where it runs: the report directory, outside the sources.
        cwd: reportDir,
        env: { ...process.env, REQUESTS_CA_BUNDLE: infra.tls.caFile, SCHEMATHESIS_HOOKS: path.resolve('scripts/fuzz/hooks.py'), FUZZ_ROTATE: JSON.stringify(rotations(seeded)) },
      });
      child.once('error', reject);
      child.once('exit', (exit, signal) => resolve(exit ?? (signal ? 1 : 0)));
    });
    // Whatever the fuzzer sent, the money still adds up (what `npm run admin -- ledger verify` checks).
    const ledger = await verifyLedger(infra.orm.em.fork());
    for (const problem of ledger.problems) console.error(`fuzz: ledger verify: ${problem}`);
    console.error(`fuzz: ledger verify: ${ledger.ok ? 'ok' : `${ledger.problems.length} problem(s)`}`);
    return ledger.ok ? code : 1;
  } finally {
    // A Temporal call the API's outbox still had in flight may fail once its connection is closed; the
    // run's verdict is Schemathesis's, so such a late failure is reported, not thrown.
    const late = (err: unknown) => console.error('fuzz: after the run:', err instanceof Error ? err.message : err);
    process.on('uncaughtException', late);
    process.on('unhandledRejection', late);
    for (const stop of stops) await stop().catch((err) => console.error('fuzz: cleanup failed', err));
  }
}

/** A receiver that takes every delivery at once, with no connection made: the fuzz run's only receiver. */
async function acceptEveryDelivery(): Promise<PostOutcome> {
  return { ok: true, statusCode: 200, durationMs: 0, responseBody: null, error: null };
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
