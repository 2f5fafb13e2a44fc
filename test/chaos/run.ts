/**
 * `npm run chaos -- --seed N --minutes M`: starts its own PostgreSQL and Temporal servers and the service's
 * processes (docs/chaos.md), runs the seed's schedule of faults and load, heals, checks, prints the report
 * and exits 1 unless every invariant held. Without --seed, a seed is drawn and printed.
 */
import { parseArgs } from 'node:util';
import globalSetup from '../support/global-setup.js';
import globalTeardown from '../support/global-teardown.js';
import { runChaos } from './chaos.js';
import { formatReport } from './report.js';

const { values } = parseArgs({ options: { seed: { type: 'string' }, minutes: { type: 'string', default: '3' }, customers: { type: 'string', default: '6' } } });
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const minutes = Number(values.minutes);
const customers = Number(values.customers);
if (!Number.isInteger(seed) || seed < 0 || !(minutes > 0 && minutes <= 360) || !Number.isInteger(customers) || customers < 1) {
  process.stderr.write('usage: npm run chaos -- [--seed N (a whole number)] [--minutes M (up to 360; 3 by default)] [--customers C (6)]\n');
  process.exit(2);
}
// Servers of its own always, as the soak: a chaos run kills what it runs on.
for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'TEMPORAL_ADDRESS']) delete process.env[name];

const log = (line: string) => process.stderr.write(`chaos: ${line}\n`);
let exitCode = 1;
try {
  await globalSetup();
  const report = await runChaos({ seed, minutes, customers }, log);
  process.stdout.write(`${formatReport(report)}\n`);
  if (process.env.CHAOS_REPORT_FILE) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(process.env.CHAOS_REPORT_FILE, JSON.stringify(report, null, 2));
  }
  exitCode = report.ok ? 0 : 1;
} catch (err) {
  process.stderr.write(`chaos: could not run seed ${seed}: ${(err as Error).stack ?? err}\n`);
} finally {
  await globalTeardown().catch((err) => log(`teardown: ${(err as Error).message}`));
}
process.exit(exitCode);
