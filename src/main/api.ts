/**
 * The HTTPS API alone (production: run several behind a load balancer). Uses DATABASE_URL and
 * TEMPORAL_ADDRESS, defaulting to the embedded servers that `npm start` runs. Migrations run at start
 * (the migrator takes a lock, so several instances starting at once is safe).
 */
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from '../config.js';
import { ensureDevCertificate, readTls } from '../dev/tls.js';
import { createLogger } from '../log.js';
import { connectTemporalFor, defaultDatabaseUrl, openMigratedDatabase, startApi } from './runtime.js';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const orm = await openMigratedDatabase(defaultDatabaseUrl(config));
  const temporal = await connectTemporalFor(config);
  let tls: { cert: Buffer; key: Buffer } | undefined;
  if (config.http.tlsCertFile) tls = { cert: readFileSync(config.http.tlsCertFile), key: readFileSync(config.http.tlsKeyFile!) };
  else if (!config.http.trustProxy) tls = readTls(await ensureDevCertificate(config.dataDir));
  const api = await startApi({ config, orm, temporal, log, tls });
  log.info({ origin: api.origin }, 'API listening');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // Stop taking connections, let in-flight requests finish, then release the pools.
    await api.close();
    await temporal.connection.close();
    await orm.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `api failed to start: ${err?.stack ?? err}\n`);
  process.exit(1);
});
