/**
 * `npm run fuzz`: Schemathesis against a running service, driven by the API document.
 *
 * Starts embedded PostgreSQL, a Temporal dev server and the HTTPS API on free ports, makes a business
 * with a test key (and a withdrawal method, so withdrawals get past that check, and two disputes, so the
 * dispute operations get past their 404), then runs
 * `schemathesis run <origin>/api/openapi.json --checks all` with that key. Exits with Schemathesis's
 * code: non-zero on any 5xx, any answer that breaks the document, or any other failed check.
 *
 * No worker runs: a worker would POST webhook deliveries to whatever URLs the fuzzer registered, and no
 * traffic may leave this machine. The fuzzer tests the HTTP contract, which the API process answers.
 *
 * Settings (environment): FUZZ_MAX_EXAMPLES (per operation, default 60), FUZZ_SEED, FUZZ_PHASES (default
 * examples,coverage,fuzzing,stateful; the stateful sequences follow the document's links), FUZZ_REPORT_DIR
 * (default .data/fuzz), and arguments after `npm run fuzz --` go to Schemathesis as they are.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../src/dev/free-port.js';
import { startFuzzServers } from './fuzz/servers.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { connectTemporalFor, startApi } from '../src/main/runtime.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createBusiness, DEMO_BUSINESS } from '../src/modules/businesses/business.service.js';
import { addWithdrawalMethod } from '../src/modules/withdrawals/withdrawal-method.service.js';
import type { Business } from '../src/modules/businesses/business.entity.js';
import { beginPayment, completePayment } from '../src/modules/checkout/payment.lifecycle.js';
import { createSessionInput } from '../src/modules/checkout/session.schemas.js';
import { createSession } from '../src/modules/checkout/session.service.js';
import { recordDisputeNotice } from '../src/modules/disputes/dispute.operator.js';
import { simulatedChargeId } from '../src/modules/processor/charges.simulator.js';
import type { Config } from '../src/config.js';

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
    });
    const log = createLogger(config.logLevel);
    const temporal = await connectTemporalFor(config);
    stops.unshift(() => temporal.connection.close());
    const tls = { cert: readFileSync(infra.tls.certFile), key: readFileSync(infra.tls.keyFile) };
    const api = await startApi({ config, orm: infra.orm, temporal, log, tls });
    stops.unshift(() => api.close());

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
    await addWithdrawalMethod(em, business.id, 'wallet', { walletEmail: 'payouts@example.com' });
    const testKey = keys.find((k) => k.mode === 'test')!.secret;
    await seedDisputes(infra.orm, business, keys.find((k) => k.mode === 'test')!.id, config);

    mkdirSync(reportDir, { recursive: true });
    const args = [
      '--config-file', path.resolve('scripts/fuzz/schemathesis.toml'),
      'run',
      `${api.origin}/api/openapi.json`,
      '--checks', 'all',
      '--header', `Authorization: Bearer ${testKey}`,
      '--tls-verify', infra.tls.caFile,
      '--max-examples', maxExamples,
      '--phases', phases,
      '--workers', '2',
      // The pay call waits up to 10 s for the payment's outcome, and with no worker running it always waits.
      '--request-timeout', '30',
      '--generation-database', 'none',
      '--report', 'junit',
      '--report-dir', reportDir,
      '--no-color',
      ...(process.env.FUZZ_SEED ? ['--seed', process.env.FUZZ_SEED] : []),
      ...process.argv.slice(2),
    ];
    console.error(`fuzz: ${schemathesis} ${args.join(' ').replace(testKey, 'mp_test_…')}`);
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(schemathesis, args, {
        stdio: 'inherit',
        // Schemathesis keeps a cache directory where it runs: the report directory, outside the sources.
        cwd: reportDir,
        env: { ...process.env, REQUESTS_CA_BUNDLE: infra.tls.caFile, SCHEMATHESIS_HOOKS: path.resolve('scripts/fuzz/hooks.py') },
      });
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    // A Temporal call the API's outbox still had in flight may fail once its connection is closed; the
    // run's verdict is Schemathesis's, so such a late failure is reported, not thrown.
    const late = (err: unknown) => console.error('fuzz: after the run:', err instanceof Error ? err.message : err);
    process.on('uncaughtException', late);
    process.on('unhandledRejection', late);
    for (const stop of stops) await stop().catch((err) => console.error('fuzz: cleanup failed', err));
  }
}

/**
 * Two disputes (a chargeback and an inquiry) for the dispute operations to be fuzzed against, not only
 * answered 404. No worker runs, so each payment is recorded by its own lifecycle steps, as the payment
 * workflow's activities would record it.
 */
async function seedDisputes(orm: MikroORM, business: Business, keyId: string, config: Config): Promise<void> {
  const caller = { businessId: business.id, livemode: false, keyId, scope: 'full' as const, business };
  for (const inquiry of [false, true]) {
    const input = createSessionInput.parse({ description: 'Fuzz order', customer: { email: 'fuzz@example.com' }, items: [{ name: 'Mug', price: 12, quantity: 1 }] });
    const { session } = await createSession(orm.em.fork(), caller, input, { sessionTtlMs: config.sessionTtlMs });
    await beginPayment(orm.em.fork(), session.id, { customerName: 'Fuzz', cardBrand: 'visa', cardLast4: '4242' }, `fuzz-${session.id}`);
    await completePayment(orm.em.fork(), session.id, simulatedChargeId('ok', session.id));
    const notice = { checkoutSessionId: session.id, reason: 'general' as const, amountInCents: null, inquiry };
    await orm.em.fork().transactional((tx) => recordDisputeNotice(tx, notice, config.disputes));
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
