/**
 * The migrations, as a deploy's own step (`node dist/migrate.js`): run once before the API and worker
 * processes of a release start, so N processes never race to alter the schema, and a failed migration
 * stops the deploy before any new code serves. Uses DATABASE_URL (the embedded server's by default).
 * The migrator runs every pending migration in one transaction under its lock; run twice, it does nothing.
 * Started before PostgreSQL answers (a job scheduled beside a database still starting or failing over),
 * it waits for it as the API and worker do (STARTUP_TIMEOUT, src/main/dependency-wait.ts).
 */
import { ConfigError, loadConfig } from '../config.js';
import { migrate } from '../db/orm.js';
import { openDatabase } from './database.js';
import { embeddedUrl } from '../dev/embedded-url.js';
import { createLogger } from '../log.js';
import { dependencyWait, StartupTimeout } from './dependency-wait.js';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  // The address alone, not runtime.ts: this step loads no HTTP server or Temporal code.
  const url = config.databaseUrl ?? embeddedUrl(config.dev.postgresPort);
  const orm = await openDatabase(url);
  try {
    const wait = dependencyWait({ log, timeoutMs: config.startupTimeoutMs });
    const pending = (await wait(`PostgreSQL at ${new URL(url).host}`, () => orm.migrator.getPending())).map((m) => m.name);
    await migrate(orm);
    log.info({ applied: pending }, pending.length ? `applied ${pending.length} migration(s); schema current` : 'schema current; nothing to apply');
  } finally {
    await orm.close();
  }
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`migrate failed: ${err instanceof StartupTimeout ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});
