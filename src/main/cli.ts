/**
 * `npm run admin -- …`: operator commands against the same database `npm start` uses. With DATABASE_URL
 * unset it talks to the embedded PostgreSQL under the data directory: the running one if `npm start` is
 * up, otherwise it starts it for the duration of the command.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { withKeys } from './keys.js';
import { assertStartable, ConfigError, loadConfig, type Config } from '../config.js';
import { runningEmbeddedPort, startEmbeddedPostgres, embeddedUrl } from '../dev/embedded-postgres.js';
import { runningBanner, runningService } from '../dev/running.js';
import type { Client } from '@temporalio/client';
import { runCommand, USAGE, UsageError, type Options } from '../cli/commands.js';
import { DomainError } from '../domain/errors.js';
import { toApiError } from '../http/errors.js';
import { connectTemporalFor, embeddedDatabaseDir, openMigratedDatabase } from './runtime.js';

/** Every option any command takes (each command checks its own); `--json` and `--help` are the CLI's. */
const OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
  name: { type: 'string' },
  'fee-percent': { type: 'string' },
  'fixed-fee': { type: 'string' },
  'reserve-percent': { type: 'string' },
  'reserve-hold': { type: 'string' },
  tier: { type: 'string' },
  'rate-per-minute': { type: 'string' },
  burst: { type: 'string' },
  approved: { type: 'boolean' },
  mode: { type: 'string' },
  scope: { type: 'string' },
  type: { type: 'string' },
  'wallet-email': { type: 'string' },
  coin: { type: 'string' },
  network: { type: 'string' },
  address: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'dispute-fee': { type: 'string' },
  reason: { type: 'string' },
  amount: { type: 'string' },
  inquiry: { type: 'boolean' },
  outcome: { type: 'string' },
} as const;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, strict: true, options: OPTIONS });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const loaded = loadConfig();
  // Refused without its opt-in, as every entry point; not announced, since a command's stderr is its answer.
  assertStartable(loaded);
  const config = withKeys(loaded);
  if (positionals.join(' ') === 'banner') return printBanner(config.dataDir);
  const database = await databaseFor(config);
  const orm = await openMigratedDatabase(database.url, config);
  // Only `dispute decide` talks to Temporal: found as the database is (temporalFor).
  let temporal: Client | undefined;
  const deps = { disputeTimes: config.disputes, temporal: async () => (temporal ??= await temporalFor(config)) };
  try {
    const { json, ...opts } = values;
    const result = await runCommand(orm.em.fork(), positionals, opts as Options, deps);
    process.stdout.write(json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
    return result.exitCode ?? 0;
  } finally {
    await temporal?.connection.close();
    await orm.close();
    await database.stop?.();
  }
}

/** The banner of the running `npm start`, which it left in the data directory: no database needed. */
function printBanner(dataDir: string): number {
  const banner = runningBanner(dataDir);
  if (banner) process.stdout.write(banner);
  else process.stderr.write(`npm start is not running on ${dataDir}.\n`);
  return banner ? 0 : 1;
}

/**
 * DATABASE_URL; else the embedded PostgreSQL of `npm start` if it is running, or started here for the
 * command (`stop` then stops it after).
 */
async function databaseFor(config: Config): Promise<{ url: string; stop?: () => Promise<void> }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const dir = embeddedDatabaseDir(config);
  const port = runningEmbeddedPort(dir);
  if (port) return { url: embeddedUrl(port) };
  const pg = await startEmbeddedPostgres({ databaseDir: dir, port: config.dev.postgresPort });
  return { url: pg.url(), stop: pg.stop };
}

/** How long the CLI tries to reach Temporal before saying where it looked: a running one answers at once. */
const TEMPORAL_CONNECT_TIMEOUT_MS = 5_000;

/** Where Temporal is, and why the CLI looked there: TEMPORAL_ADDRESS, else the running `npm start`'s, else the dev server's port. */
function temporalAddressFor(config: Config): { address: string; from: string } {
  if (config.temporal.address) return { address: config.temporal.address, from: 'TEMPORAL_ADDRESS' };
  const running = runningService(config.dataDir);
  if (running?.temporalAddress) return { address: running.temporalAddress, from: `the npm start running on ${running.dataDir} (pid ${running.pid})` };
  const port = `127.0.0.1:${config.dev.temporalPort}`;
  return { address: port, from: `DEV_TEMPORAL_PORT ${config.dev.temporalPort}, as no npm start is running on ${path.resolve(config.dataDir)}` };
}

/** The Temporal of the running service, or one line saying where the CLI looked and what to set. */
async function temporalFor(config: Config): Promise<Client> {
  const { address, from } = temporalAddressFor(config);
  try {
    return await connectTemporalFor(config, { address, connectTimeoutMs: TEMPORAL_CONNECT_TIMEOUT_MS });
  } catch (err) {
    throw new UnreachableError(
      `Cannot reach Temporal at ${address} (from ${from}): ${(err as Error).message.split('\n')[0]}. Start the service (npm start), or set TEMPORAL_ADDRESS to the host:port of the Temporal it runs on.`,
    );
  }
}

/** A server the command needs is not there: one line, exit 1. */
class UnreachableError extends Error {}

main().then(
  (code) => process.exit(code),
  (err) => {
    const known = err instanceof UsageError || err instanceof ConfigError || err instanceof UnreachableError || (err as Error).name === 'NotFoundError';
    // A refused request (an unknown session, a refunded one): the same words the API would answer.
    if (err instanceof DomainError) process.stderr.write(`${toApiError(err)!.message}\n`);
    else process.stderr.write(known ? `${(err as Error).message}\n` : `admin failed: ${(err as Error)?.stack ?? err}\n`);
    process.exit(known && err instanceof UsageError ? 2 : 1);
  },
);
