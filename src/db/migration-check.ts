import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

/**
 * In production the API and the worker do not migrate: `node dist/migrate.js` does, once, as its own
 * step before a deploy's processes start (docs/decisions.md). A process that starts before that step
 * has finished waits for it, and gives up with the names of the missing migrations when the time is up,
 * rather than run new code on an old schema.
 */
export async function awaitMigrations(orm: MikroORM, log: Logger, opts: { timeoutMs?: number; pollMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let told = false;
  for (;;) {
    const pending = (await orm.migrator.getPending()).map((m) => m.name);
    if (pending.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`the database lacks ${pending.length} migration(s) (${pending.join(', ')}); run \`node dist/migrate.js\` first`);
    }
    if (!told) log.warn({ pending }, 'waiting for migrations: run `node dist/migrate.js`');
    told = true;
    await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 1_000));
  }
}
