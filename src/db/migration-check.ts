import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * In production the API and the worker do not migrate: `node dist/migrate.js` does, once, as its own
 * step before a deploy's processes start (docs/decisions.md). A process that starts before that step
 * has finished waits for it (src/main/runtime.ts, openDatabaseFor): it calls this until it passes, and
 * gives up with the names of the missing migrations when its start-up time is up, rather than run new
 * code on an old schema.
 */
export async function assertMigrated(orm: MikroORM): Promise<void> {
  const pending = (await orm.migrator.getPending()).map((m) => m.name);
  if (pending.length) throw new Error(`the database lacks ${pending.length} migration(s) (${pending.join(', ')}); run \`node dist/migrate.js\``);
}
