import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { migrationsList } from './migrations/index.js';


/** The service's MikroORM configuration over `entities` (which the composition root collects from the modules). */
export function ormOptions(databaseUrl: string, entities: Options['entities'], overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    // Migrations are hand-written SQL; no schema snapshot files are kept.
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false },
    // A request or activity forks its own context; the global one must never carry state.
    allowGlobalContext: false,
    pool: { min: 0, max: 10 },
    debug: false,
    // The migrator's progress lines are noise in service and test output; a process with DEBUG_ORM=1
    // passes a logger that shows them (src/main/runtime.ts).
    logger: () => undefined,
    ...overrides,
  });
}

export async function openOrm(databaseUrl: string, entities: Options['entities'], overrides: Partial<Options> = {}): Promise<MikroORM> {
  return MikroORM.init(ormOptions(databaseUrl, entities, overrides));
}

/** Versioned migrations run at start; the schema is never diffed and altered at run time. */
export async function migrate(orm: MikroORM): Promise<void> {
  await orm.migrator.up();
}
