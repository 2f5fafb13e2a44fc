/**
 * The HTTPS API alone (production: run several behind a load balancer). Uses DATABASE_URL and
 * TEMPORAL_ADDRESS, defaulting to the embedded servers that `npm start` runs. Migrations run at start
 * in development and tests (under the migrator's lock); in production `node dist/migrate.js` runs them
 * first and this process waits for them (runtime.ts, openDatabaseFor). Started before PostgreSQL or
 * Temporal answers, it waits for them, its ops port open and not ready (boot.ts).
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { assertCertificate } from './certificate.js';
import { logLivePayments } from '../modules/processor/index.js';
import { gracefulShutdown } from './graceful-shutdown.js';
import { bootService, runEntryPoint } from './boot.js';
import { startApi } from './runtime.js';

runEntryPoint('api failed to start', async () => {
  // Before any connection, so it is the first thing an operator reads, not a wait for the database.
  assertCertificate(loadConfig(process.env, 'production'));
  const { config, log, orm, temporal, ops } = await bootService('api');
  let tls: { cert: Buffer; key: Buffer } | undefined;
  if (config.http.tlsCertFile) tls = { cert: readFileSync(config.http.tlsCertFile), key: readFileSync(config.http.tlsKeyFile!) };
  else if (!config.http.trustProxy) {
    // The development certificate's generator (selfsigned and its ASN.1 stack) loads only when it is used.
    const { ensureDevCertificate, readTls } = await import('../dev/tls.js');
    tls = readTls(await ensureDevCertificate(config.dataDir));
  }
  const api = await startApi({ config, orm, temporal, log, tls });
  gracefulShutdown({
    log,
    steps: [
      // Not ready first, so the load balancer stops routing here; then stop taking connections and let
      // in-flight requests finish; then release the pools.
      { name: 'readiness off', run: ops.drain },
      { name: 'API server', run: api.close },
      { name: 'Temporal connection', run: () => temporal.connection.close() },
      { name: 'database pool', run: () => orm.close() },
      { name: 'admin server', run: ops.close },
    ],
  });
  // Ready, and announced, only once SIGTERM is handled: a supervisor that stops the process as soon as
  // it reads this line must get a drain and exit 0, not the default action's kill.
  ops.serving();
  log.info({ origin: api.origin, adminPort: ops.port }, 'API listening');
  logLivePayments(log, config);
});
