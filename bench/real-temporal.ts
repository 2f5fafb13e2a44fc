/**
 * `BENCH_TEMPORAL=real`: a real Temporal server (go.temporal.io/server, the binary the rehearsal builds
 * and caches through scripts/provision-temporal.sh `server`) on a PostgreSQL of its own, set up, started
 * and registered exactly as the rehearsal does it (scripts/rehearse/temporal.ts, deploy/temporal/), with
 * no Web UI. The dev server's single SQLite connection caps (b) to (d); this shows the service past it.
 */
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/dev/embedded-postgres.js';
import { freePort } from '../src/dev/free-port.js';
import { startTemporal } from '../scripts/rehearse/temporal.js';
import { stopAll } from '../test/support/processes.js';

export async function startRealTemporal(root: string) {
  const need = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set: run BENCH_TEMPORAL=real through \`npm run bench\` (scripts/run.sh provisions the server)`);
    return value;
  };
  const bins = {
    server: need('TEMPORAL_SERVER_PATH'),
    sqlTool: need('TEMPORAL_SQL_TOOL_PATH'),
    cli: need('TEMPORAL_CLI_PATH'),
    schemaDir: need('TEMPORAL_SCHEMA_DIR'),
    ui: '',
  };
  const started = Date.now();
  const db = await startEmbeddedPostgres({ databaseDir: path.join(root, 'pg-temporal'), port: await freePort(), database: 'postgres' });
  try {
    const server = await startTemporal({ root: path.join(root, 'temporal-real'), bins, db: { port: Number(new URL(db.url()).port), user: 'postgres', password: 'postgres' }, ui: false });
    return {
      address: server.address,
      /** Schema set up, server serving, namespace and search attributes registered. */
      startMs: Date.now() - started,
      description: `Temporal server ${path.basename(path.dirname(bins.server))} (deploy/temporal/config/production.yaml, deploy/temporal/dynamicconfig.yaml) on embedded PostgreSQL`,
      stop: async () => {
        await server.stop();
        await stopAll(20_000);
        await db.stop();
      },
    };
  } catch (err) {
    await stopAll(20_000);
    await db.stop();
    throw err;
  }
}
