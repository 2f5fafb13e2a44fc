/**
 * `npm run clean`: removes what `npm start` keeps for this clone. Its data directory (`.data`: the
 * database unless it lives elsewhere, Temporal's history, the logs, the development CA and the demo
 * keys), and, as root, the database's directory outside the clone (/var/lib/payments-service/…, where
 * the `postgres` user can reach it), which deleting the clone would leave behind. Refused while
 * `npm start` runs on this clone. The caches every clone shares stay.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { assertStartable, ConfigError, loadConfig } from '../config.js';
import { runningEmbeddedPort } from '../dev/embedded-postgres.js';
import { DATA_ROOT, effectiveDataDir } from '../dev/postgres-user.js';
import { runningBanner } from '../dev/running.js';
import { embeddedDatabaseDir } from './runtime.js';

/** `du -sh`'s size, or nothing when it cannot tell. */
function sizeOf(dir: string): string {
  try {
    return ` (${execFileSync('du', ['-sh', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\t')[0]!.trim()})`;
  } catch {
    return '';
  }
}

function main(): number {
  const config = loadConfig();
  assertStartable(config);
  const dataDir = path.resolve(config.dataDir);
  const databaseDir = embeddedDatabaseDir(config);
  if (runningBanner(dataDir) !== null || runningEmbeddedPort(databaseDir) !== null) {
    process.stderr.write('npm start is running on this clone: stop it (Ctrl-C) first, then run npm run clean again.\n');
    return 1;
  }
  // A DATA_DIR that holds the clone itself (`.`, or a parent) is not removed whole.
  if (!path.relative(dataDir, process.cwd()).startsWith('..')) {
    process.stderr.write(`DATA_DIR (${dataDir}) holds this clone; remove what you mean to by hand.\n`);
    return 1;
  }
  const outside = path.dirname(effectiveDataDir(databaseDir));
  const targets = [
    ...(outside.startsWith(`${DATA_ROOT}/`) ? [{ dir: outside, what: 'the database, kept outside the clone for the postgres user' }] : []),
    { dir: dataDir, what: "the data npm start keeps: database, Temporal's history, logs, development CA and keys" },
  ].filter(({ dir }) => existsSync(dir));
  if (targets.length === 0) {
    process.stdout.write(`Nothing to remove: ${dataDir} is not there.\n`);
    return 0;
  }
  for (const { dir, what } of targets) {
    const size = sizeOf(dir);
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`Removed ${dir}${size}: ${what}.\n`);
  }
  process.stdout.write('The caches every clone shares stay: ~/.cache/payments-service (Temporal), and as root /var/cache/payments-service (PostgreSQL).\n');
  return 0;
}

try {
  process.exitCode = main();
} catch (err) {
  process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `clean failed: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
}
