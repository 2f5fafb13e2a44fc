import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.js';
import { freePort } from '../../src/dev/free-port.js';
import { startTemporalDevServer } from '../../src/dev/temporal-dev-server.js';
import { ensureDevCertificate } from '../../src/dev/tls.js';
import { openMigratedDatabase } from '../../src/main/runtime.js';

/**
 * The fuzz run's own servers, as `npm start` makes them (src/dev/): embedded PostgreSQL, migrated, a
 * Temporal dev server and a development certificate, in a scratch directory that goes when they stop.
 */
export async function startFuzzServers() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'payments-fuzz-'));
  const db = await startEmbeddedPostgres({ databaseDir: path.join(root, 'pg'), port: await freePort() });
  const temporal = await startTemporalDevServer({ dataDir: path.join(root, 'temporal'), port: await freePort(), uiPort: null, cliPath: process.env.TEMPORAL_CLI_PATH });
  const orm = await openMigratedDatabase(db.url(), { debugOrm: false });
  const tls = await ensureDevCertificate(root);
  return {
    databaseUrl: db.url(),
    temporalAddress: temporal.address,
    tls,
    orm,
    stop: async () => {
      await orm.close();
      await temporal.stop();
      await db.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
