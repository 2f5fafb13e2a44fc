/**
 * `npm start`: the whole service on one machine. Embedded PostgreSQL and Temporal's dev server (with its
 * Web UI) unless DATABASE_URL / TEMPORAL_ADDRESS point elsewhere; then migrations, the worker, the HTTPS
 * API, a demo business, and a banner. Ctrl-C stops every child cleanly.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withKeys } from './keys.js';
import { assertStartable, ConfigError, loadConfig, TEST_ENV_WARNING, type Config } from '../config.js';
import { startEmbeddedPostgres } from '../dev/embedded-postgres.js';
import { startTemporalDevServer } from '../dev/temporal-dev-server.js';
import { asPortInUse, assertPortsFree, npmStartListeners, PortInUseError, whyServerFailed, type Listener } from '../dev/listen-ports.js';
import { ensureDevCertificate, readTls } from '../dev/tls.js';
import { removeRunningService, writeRunningService } from '../dev/running.js';
import { terminalLoggers } from '../dev/terminal-logs.js';
import { createBusiness, DEMO_BUSINESS, type IssuedKey } from '../modules/businesses/index.js';
import { livePaymentsNotice } from '../modules/processor/index.js';
import { bannerText } from './banner.js';
import { startOpsPort } from './ops-port.js';
import { checkStripeKey } from '../modules/stripe/index.js';
import { connectTemporalFor, embeddedDatabaseDir, openMigratedDatabase, startApi, startWorker } from './runtime.js';

const stops: (() => Promise<void>)[] = [];
let stopping = false;
/** The ports this start opens, by variable, and its configuration: a failure names the port it met. */
let listeners: Listener[] = [];
let started: Config | undefined;

async function main() {
  const loaded = loadConfig();
  assertStartable(loaded);
  const config = withKeys(loaded);
  started = config;
  listeners = npmStartListeners(config);
  await assertPortsFree(listeners, config);

  // The servers' own output goes to files, and so does the service's full log, so the terminal shows
  // the banner and one short line per thing worth a look (src/dev/terminal-logs.ts).
  const logDir = path.resolve(config.dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const log = terminalLoggers(config.logLevel, logDir, config.logFormat);
  if (config.env === 'test') log.api.warn(TEST_ENV_WARNING);
  const logTo = (name: string) => (line: string) => appendFileSync(path.join(logDir, name), `${line}\n`);

  // With ACQUIRER=stripe only: a key Stripe refuses stops the start here, as in the API and the worker (boot.ts).
  if (config.acquirer) await checkStripeKey(config.acquirer, log.api);
  const postgres = await postgresFor(config, logTo('postgres.log'));
  const temporalServer = await temporalFor(config, logTo('temporal.log'));
  const tlsFiles = config.http.tlsCertFile
    ? { certFile: config.http.tlsCertFile, keyFile: config.http.tlsKeyFile!, caFile: null }
    : await ensureDevCertificate(config.dataDir);
  const runConfig = {
    ...config,
    databaseUrl: postgres.url,
    temporal: { ...config.temporal, address: temporalServer.address },
    // The development CA signs every local HTTPS server made with its certificate (the example shop's
    // too), so the worker trusts it for webhook receivers unless WEBHOOK_CA_FILE names other CAs.
    webhooks: { ...config.webhooks, caFile: config.webhooks.caFile ?? tlsFiles.caFile ?? undefined },
  };

  const orm = await openMigratedDatabase(postgres.url, config);
  stops.unshift(() => orm.close());
  const demo = await ensureDemoBusiness(config.dataDir, orm);

  const temporal = await connectTemporalFor(runConfig);
  stops.unshift(() => temporal.connection.close());
  const worker = await startWorker({ config: runConfig, orm, temporal, log: log.worker });
  stops.unshift(worker.stop);

  const api = await startApi({ config: runConfig, orm, temporal, log: log.api, tls: readTls(tlsFiles) });
  stops.unshift(api.close);
  const ops = await startOpsPort({ config: runConfig, connections: { orm, temporal }, log: log.api, worker: true, codec: true });
  stops.push(ops.close);

  const testKey = demo.keys.find((k) => k.mode === 'test')!.secret;
  const banner = bannerText({
    apiOrigin: api.origin,
    uiUrl: temporalServer.uiUrl ?? `(external Temporal at ${temporalServer.address})`,
    admin: `http://${config.admin.host}:${ops.port}`,
    temporalAddress: temporalServer.uiUrl ? temporalServer.address : null,
    sdkMetrics: runConfig.temporal.metricsAddress ?? null,
    portsFrom: config.derivedPorts?.from ?? null,
    testKey,
    livePayments: livePaymentsNotice(runConfig).replace(/^live payments: /, ''),
    caFile: tlsFiles.caFile,
    pgWhere: postgres.where,
    dataDir: path.resolve(config.dataDir),
    logDir,
  });
  writeRunningService(config.dataDir, {
    apiUrl: `${api.origin}/api/v1`,
    testKey,
    businessId: demo.businessId,
    caFile: tlsFiles.caFile,
    banner,
    temporalAddress: temporalServer.address,
  });
  stops.push(async () => removeRunningService(config.dataDir));
  process.stdout.write(banner);
}

/** DATABASE_URL, or else the embedded PostgreSQL, started here and stopped last; `where` is for the banner. */
async function postgresFor(config: Config, log: (line: string) => void): Promise<{ url: string; where: string }> {
  if (config.databaseUrl) return { url: config.databaseUrl, where: 'external (DATABASE_URL)' };
  const asked = path.resolve(embeddedDatabaseDir(config));
  const pg = await startEmbeddedPostgres({ databaseDir: asked, port: config.dev.postgresPort, log, ownProcessGroup: true }).catch(async (err) => {
    throw await whyServerFailed(err, listeners.filter((l) => l.variable === 'DEV_POSTGRES_PORT'), config);
  });
  stops.unshift(pg.stop);
  const where = `127.0.0.1:${config.dev.postgresPort}, data in ${pg.dataDir}`;
  // As root it runs as the postgres user; when that user cannot reach the clone, the data lives outside it.
  return { url: pg.url(), where: pg.dataDir === asked ? where : `${where} (the postgres user cannot reach ${asked})` };
}

/** TEMPORAL_ADDRESS, or else Temporal's dev server with its Web UI, started here. */
async function temporalFor(config: Config, log: (line: string) => void): Promise<{ address: string; uiUrl: string | null }> {
  if (config.temporal.address) return { address: config.temporal.address, uiUrl: null };
  const temporal = await startTemporalDevServer({
    dataDir: config.dataDir,
    port: config.dev.temporalPort,
    uiPort: config.dev.temporalUiPort,
    cliPath: config.dev.temporalCliPath,
    log,
    ownProcessGroup: true,
    // The UI decrypts histories through the codec endpoint this process serves on its ops port.
    uiCodecEndpoint: `http://${config.admin.host}:${config.admin.port}/codec`,
  }).catch(async (err) => {
    throw await whyServerFailed(err, listeners.filter((l) => l.variable === 'DEV_TEMPORAL_PORT' || l.variable === 'DEV_TEMPORAL_UI_PORT'), config);
  });
  stops.unshift(temporal.stop);
  return { address: temporal.address, uiUrl: temporal.uiUrl };
}


/** The demo business is created once; its keys are kept in the data directory so the banner can repeat them. */
async function ensureDemoBusiness(dataDir: string, orm: Awaited<ReturnType<typeof openMigratedDatabase>>): Promise<{ businessId: string; keys: IssuedKey[] }> {
  const file = path.join(dataDir, 'demo-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { businessId: string; keys: IssuedKey[] };
  const { business, keys } = await createBusiness(orm.em.fork(), DEMO_BUSINESS);
  writeFileSync(file, JSON.stringify({ businessId: business.id, keys }, null, 2), { mode: 0o600 });
  return { businessId: business.id, keys };
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
  const known = started ? asPortInUse(err, listeners, started) : err;
  if (known instanceof ConfigError) process.stderr.write(`${known.message}\n`);
  // A taken port is the user's to fix, not a bug: its one line, no stack.
  else if (known instanceof PortInUseError) process.stderr.write(`start failed: ${known.message}\n`);
  else process.stderr.write(`start failed: ${err?.stack ?? err}\n`);
  void shutdown(1);
});
