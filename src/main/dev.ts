/**
 * `npm start`: the whole service on one machine. Embedded PostgreSQL and Temporal's dev server (with its
 * Web UI) unless DATABASE_URL / TEMPORAL_ADDRESS point elsewhere; then migrations, the worker, the HTTPS
 * API, a demo business, and a banner. Ctrl-C stops every child cleanly.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertStartable, ConfigError, loadConfig, TEST_ENV_WARNING } from '../config.js';
import { startEmbeddedPostgres } from '../dev/embedded-postgres.js';
import { startTemporalDevServer } from '../dev/temporal-dev-server.js';
import { ensureDevCertificate, readTls } from '../dev/tls.js';
import { createLogger } from '../log.js';
import { createBusiness, DEMO_BUSINESS, type IssuedKey } from '../modules/businesses/business.service.js';
import { livePaymentsNotice } from '../modules/processor/live-mode.rules.js';
import { connectTemporalFor, embeddedDatabaseDir, openMigratedDatabase, startAdmin, startApi, startWorker } from './runtime.js';

const stops: (() => Promise<void>)[] = [];
let stopping = false;

async function main() {
  const config = loadConfig();
  assertStartable(config);
  const log = createLogger(config.logLevel);
  if (config.env === 'test') log.warn(TEST_ENV_WARNING);

  // The servers' own output goes to files, so the terminal shows the service's log and the banner.
  const logDir = path.resolve(config.dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const logTo = (name: string) => (line: string) => appendFileSync(path.join(logDir, name), `${line}\n`);

  let databaseUrl = config.databaseUrl;
  let pgWhere = `external (DATABASE_URL)`;
  if (!databaseUrl) {
    const asked = path.resolve(embeddedDatabaseDir(config));
    const pg = await startEmbeddedPostgres({
      databaseDir: asked,
      port: config.dev.postgresPort,
      log: logTo('postgres.log'),
      ownProcessGroup: true,
    });
    stops.unshift(pg.stop);
    databaseUrl = pg.url();
    pgWhere = `127.0.0.1:${config.dev.postgresPort}, data in ${pg.dataDir}`;
    // As root it runs as the postgres user; when that user cannot reach the clone, the data lives outside it.
    if (pg.dataDir !== asked) pgWhere += ` (the postgres user cannot reach ${asked})`;
  }
  let temporalAddress = config.temporal.address;
  let uiUrl: string | null = null;
  if (!temporalAddress) {
    const temporal = await startTemporalDevServer({
      dataDir: config.dataDir,
      port: config.dev.temporalPort,
      uiPort: config.dev.temporalUiPort,
      cliPath: process.env.TEMPORAL_CLI_PATH,
      log: logTo('temporal.log'),
      ownProcessGroup: true,
      // The UI decrypts histories through the codec endpoint this process serves on its admin port.
      uiCodecEndpoint: `http://${config.admin.host}:${config.admin.port}/codec`,
    });
    stops.unshift(temporal.stop);
    temporalAddress = temporal.address;
    uiUrl = temporal.uiUrl;
  }
  const runConfig = { ...config, databaseUrl, temporal: { ...config.temporal, address: temporalAddress } };

  const orm = await openMigratedDatabase(databaseUrl);
  stops.unshift(() => orm.close());
  const demoKeys = await ensureDemoBusiness(config.dataDir, orm);

  const temporal = await connectTemporalFor(runConfig);
  stops.unshift(() => temporal.connection.close());
  const worker = await startWorker({ config: runConfig, orm, temporal, log });
  stops.unshift(worker.stop);

  const tlsFiles = config.http.tlsCertFile
    ? { certFile: config.http.tlsCertFile, keyFile: config.http.tlsKeyFile!, caFile: null }
    : await ensureDevCertificate(config.dataDir);
  const api = await startApi({ config: runConfig, orm, temporal, log, tls: readTls(tlsFiles) });
  stops.unshift(api.close);
  const admin = await startAdmin({ config: runConfig, orm, temporal, log, worker: true, codec: true });
  stops.push(admin.close);

  const testKey = demoKeys.find((k) => k.mode === 'test')!;
  const lines = [
    '',
    '  Payments service is running',
    `  API              ${api.origin}/api`,
    `  Temporal UI      ${uiUrl ?? `(external Temporal at ${temporalAddress})`}`,
    `  Metrics, health  http://${config.admin.host}:${admin.port}/metrics  /healthz  /readyz`,
    `  Codec endpoint   http://${config.admin.host}:${admin.port}/codec (the UI decrypts histories through it)`,
    `  Demo test key    ${testKey.secret}`,
    `  Live payments    ${livePaymentsNotice(runConfig).replace(/^live payments: /, '')}`,
    tlsFiles.caFile ? `  CA file to trust ${tlsFiles.caFile}` : '',
    `  PostgreSQL       ${pgWhere}`,
    `  Data, logs       ${path.resolve(config.dataDir)}, ${logDir}`,
    '',
    `  curl --cacert ${tlsFiles.caFile ?? '<your CA>'} -H "Authorization: Bearer ${testKey.secret}" ${api.origin}/api/checkout/sessions`,
    '',
    '  Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(lines.filter((l, i) => l !== '' || i === 0 || lines[i - 1] !== '').join('\n') + '\n');
}

/** The demo business is created once; its keys are kept in the data directory so the banner can repeat them. */
async function ensureDemoBusiness(dataDir: string, orm: Awaited<ReturnType<typeof openMigratedDatabase>>): Promise<IssuedKey[]> {
  const file = path.join(dataDir, 'demo-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).keys as IssuedKey[];
  const { business, keys } = await createBusiness(orm.em.fork(), DEMO_BUSINESS);
  writeFileSync(file, JSON.stringify({ businessId: business.id, keys }, null, 2), { mode: 0o600 });
  return keys;
}

async function shutdown(code: number) {
  if (stopping) {
    process.stderr.write('Stopping at once; the servers stop with this process.\n');
    process.exit(130); // a second Ctrl-C: do not wait
  }
  stopping = true;
  for (const stop of stops) {
    try {
      await stop();
    } catch (err) {
      process.stderr.write(`shutdown: ${(err as Error).message}\n`);
    }
  }
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
// The terminal closed: the servers, in their own process groups, would not hear of it.
process.on('SIGHUP', () => void shutdown(0));
main().catch((err) => {
  process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `start failed: ${err?.stack ?? err}\n`);
  void shutdown(1);
});
