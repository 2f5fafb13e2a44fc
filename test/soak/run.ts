/**
 * `npm run soak`: starts its own PostgreSQL (embedded) and Temporal dev server in a scratch directory,
 * the way the test suite does, runs the soak against two API processes and a worker, prints the
 * summary, and exits 1 unless the service held. Settings: SOAK_SECONDS (300), SOAK_BUSINESSES (4),
 * SOAK_CONCURRENCY (1), SOAK_MAX_REQUESTS (1000000). It never targets anything but this machine.
 */
import globalSetup from '../support/global-setup.js';
import globalTeardown from '../support/global-teardown.js';
import { runSoak, soakOptionsFromEnv } from './soak.js';
import { formatSummary } from './summary.js';

const options = soakOptionsFromEnv(process.env, { seconds: 300, businesses: 4, concurrency: 1, maxRequests: 1_000_000 });
// Its own servers always: a soak must not write into a database or Temporal someone else is using.
for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'TEMPORAL_ADDRESS']) delete process.env[name];

const log = (line: string) => process.stderr.write(`soak: ${line}\n`);
let exitCode = 1;
try {
  log('starting PostgreSQL and the Temporal dev server');
  await globalSetup();
  const report = await runSoak(options, log);
  process.stdout.write(`${formatSummary(report)}\n`);
  if (process.env.SOAK_REPORT_FILE) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(process.env.SOAK_REPORT_FILE, JSON.stringify(report, null, 2));
  }
  exitCode = report.ok ? 0 : 1;
} catch (err) {
  process.stderr.write(`soak: could not run: ${(err as Error).stack ?? err}\n`);
} finally {
  await globalTeardown().catch((err) => log(`teardown: ${(err as Error).message}`));
}
process.exit(exitCode);
