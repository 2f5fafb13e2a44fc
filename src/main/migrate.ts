/**
 * The migrations, as a deploy's own step (`node dist/migrate.js`): run once before the API and worker
 * processes of a release start, so N processes never race to alter the schema, and a failed migration
 * stops the deploy before any new code serves. Uses DATABASE_URL (the embedded server's by default).
 * The migrator runs every pending migration in one transaction under its lock; run twice, it does nothing.
 */
import { ConfigError, loadConfig } from '../config.js';
import { migrate } from '../db/orm.js';
import { openDatabase } from './database.js';
import { embeddedUrl } from '../dev/embedded-url.js';
import { createLogger } from '../log.js';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  // The address alone, not runtime.ts: this step loads no HTTP server or Temporal code.
  const orm = await openDatabase(config.databaseUrl ?? embeddedUrl(config.dev.postgresPort));
  try {
    const pending = (await orm.migrator.getPending()).map((m) => m.name);
    await migrate(orm);
    log.info({ applied: pending }, pending.length ? `applied ${pending.length} migration(s); schema current` : 'schema current; nothing to apply');
  } finally {
    await orm.close();
  }
}

main().catch((err) => {
  process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `migrate failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
