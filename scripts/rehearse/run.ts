/**
 * `npm run rehearse`: production's topology, run natively on this machine (no container engine here),
 * from the registries only, then restarted piece by piece under load (docs/rehearsal.md):
 *   PostgreSQL for Temporal and PostgreSQL for the app (npm's embedded server, two instances), a real
 *   Temporal server and its Web UI (built with Go by scripts/provision-temporal.sh), `node dist/migrate.js`,
 *   two `node dist/api.js` behind HAProxy with TLS ending there, two `node dist/worker.js`.
 * Then, under steady mixed load: a rolling restart of every API and worker, one at a time; a restart of
 * the Temporal server; a restart of the app's PostgreSQL. Then the checks (checks.ts), the figures, and
 * exit 0 only if everything held. Loopback only; everything it started is stopped at the end; its
 * directory (logs included) is printed and kept. REHEARSE_STEADY_SECONDS (10) sets the load between steps.
 * `--temporal cluster`: Temporal as separate hosts (temporal-cluster.ts) and, in place of its restart, the
 * faults a cluster must survive (temporal-cluster-faults.ts; docs/scaling.md).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/dev/embedded-postgres.js';
import { ensureDevCertificate } from '../../src/dev/tls.js';
import { stopAll } from '../../test/support/processes.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import { createLoadBusinesses, registerWebhooks } from './businesses.js';
import { checkOutcome } from './checks.js';
import { createClient, Stats } from './client.js';
import { startLoad } from './load.js';
import { lowPort, sleep } from './proc.js';
import { temporalUsage } from './host-usage.js';
import { latencyLine, timedClient } from './latency.js';
import { rehearseFailover } from './postgres-failover.js';
import { startPostgresHa } from './postgres-ha.js';
import { formatReport, type Step } from './report.js';
import { startServices } from './services.js';
import { binariesFromEnv, startTemporal, uiReachableOutsideLoopback } from './temporal.js';
import { clusterFaults } from './temporal-cluster-faults.js';
import { startTemporalCluster, type TemporalCluster } from './temporal-cluster.js';

const STEADY_MS = Number(process.env.REHEARSE_STEADY_SECONDS ?? 10) * 1000;
/** How long Temporal and the app's PostgreSQL stay stopped before they start again: long enough for load to meet the outage. */
const OUTAGE_MS = Number(process.env.REHEARSE_OUTAGE_SECONDS ?? 3) * 1000;
/** A run that hangs anyway ends here, stopping what it started. */
const WATCHDOG_MS = 20 * 60 * 1000;
const BUSINESSES = 3;
/** `--temporal cluster`: Temporal as separate frontend, history, matching and worker hosts (temporal-cluster.ts); else one server. */
const CLUSTER = process.argv.slice(2).join(' ').includes('--temporal cluster');
/** `--postgres ha`: the app's PostgreSQL under Patroni, and its faults instead of a restart (postgres-ha.ts). */
const POSTGRES_HA = process.argv.includes('--postgres') && process.argv[process.argv.indexOf('--postgres') + 1] === 'ha';
const log = (line: string) => process.stderr.write(`rehearse: ${line}\n`);
const timed = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
  const t0 = Date.now();
  const result = await work();
  log(`${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return result;
};

setTimeout(() => {
  process.stderr.write(`rehearse: FAILED: still running after ${WATCHDOG_MS / 60_000} minutes; stopping\n`);
  void stopAll(20_000).finally(() => process.exit(1));
}, WATCHDOG_MS).unref();

const root = mkdtempSync(path.join(os.tmpdir(), 'payments-rehearsal-'));
// Enterable by the PostgreSQL user (as root, embedded PostgreSQL runs as `postgres`), so both data
// directories stay inside it and go with it; nothing in it is secret beyond this run.
chmodSync(root, 0o755);
const started = Date.now();
const cleanup: (() => Promise<unknown>)[] = [];
let exitCode = 1;
try {
  const bins = binariesFromEnv();
  log(`directory ${root}`);
  const temporalDbPort = await lowPort();
  const temporalDb = await timed('PostgreSQL for Temporal up', () => startEmbeddedPostgres({ databaseDir: path.join(root, 'pg-temporal'), port: temporalDbPort, database: 'postgres' }));
  cleanup.unshift(() => temporalDb.stop());
  const appDbPort = await lowPort();
  const startAppDb = () => startEmbeddedPostgres({ databaseDir: path.join(root, 'pg-app'), port: appDbPort, database: 'payments' });
  const ha = POSTGRES_HA ? await timed('the app PostgreSQL: 3 etcd, 3 Patroni (PostgreSQL 15, synchronous), HAProxy write/read ports', () => startPostgresHa(root)) : null;
  let appDb: Pick<EmbeddedDatabase, 'url' | 'stop'> = ha ?? (await timed('PostgreSQL for the app up', startAppDb));
  cleanup.unshift(() => appDb.stop());

  const temporalDbAccess = { port: temporalDbPort, user: 'postgres', password: 'postgres' };
  let cluster = null as TemporalCluster | null;
  const temporal = CLUSTER
    ? await timed('Temporal cluster up (2 frontends behind HAProxy, 2 history, 2 matching, 1 worker; schema, namespace, search attributes), Web UI up', async () => {
        cluster = await startTemporalCluster({ root, bins, db: temporalDbAccess });
        return { ...cluster, restart: null };
      })
    : await timed('Temporal server up (schema set up, namespace and search attributes registered), Web UI up', () => startTemporal({ root, bins, db: temporalDbAccess }));
  cleanup.unshift(() => temporal.stop());
  const uiExposed = await uiReachableOutsideLoopback(temporal.uiOrigin);
  if (uiExposed) throw new Error(`the Temporal UI answers on ${uiExposed}; it must listen on loopback only`);

  const tls = await ensureDevCertificate(path.join(root, 'proxy-tls'));
  const receiver = await startReceiver();
  cleanup.unshift(() => receiver.close());
  const services = await timed('migrated; 2 APIs, 2 workers and HAProxy up', () =>
    startServices({ root, databaseUrl: appDb.url(), temporalAddress: temporal.address, tls, webhookCaFile: receiver.caFile, encryptionKey: randomBytes(32).toString('base64'), payloadKeys: `rehearsal-1:${randomBytes(32).toString('base64')}` }),
  );
  cleanup.unshift(() => services.stop());

  const businesses = await createLoadBusinesses(appDb.url(), BUSINESSES);

  const stats = new Stats();
  const client = createClient(services.proxyOrigin, readFileSync(tls.caFile), stats);
  cleanup.unshift(async () => client.close());
  await registerWebhooks(client, businesses, () => receiver.url());

  log(`load on: ${BUSINESSES} businesses, 2 buyers and 1 treasurer each, through ${services.proxyOrigin}`);
  const timing = timedClient(client);
  const load = startLoad(timing.client, stats, businesses);
  const trafficStarted = Date.now();
  const steps: Step[] = [];
  let sameSteps = { seconds: 0, usage: [] as string[], pay: 0, refund: 0 };
  const haLines: string[] = [];
  const step = async (what: string, run: () => Promise<{ downMs: number; upMs: number; clean?: boolean; note?: string[] }>) => {
    await sleep(STEADY_MS);
    const before = stats.requests;
    const t = await timed(`${what}`, run);
    steps.push({ what, ...t, requestsDuring: stats.requests - before });
  };
  try {
    for (const s of [...services.apis, ...services.workers]) await step(`roll ${s.name} (SIGTERM, exit, start, ready)`, () => services.roll(s));
    // The side by side of one server and a cluster (docs/scaling.md) is taken here, after the same steps in both modes.
    sameSteps = { seconds: (Date.now() - trafficStarted) / 1000, usage: temporalUsage(bins.server), pay: timing.samples.pay.length, refund: timing.samples.refund.length };
    if (cluster) for (const fault of clusterFaults(cluster, stats, load.figures)) await step(fault.what, fault.run);
    else await step(`restart the Temporal server (down ${OUTAGE_MS / 1000} s at least)`, () => temporal.restart!(OUTAGE_MS));
    if (ha) {
      const failover = await rehearseFailover({ ha, businesses, stats, step, log, compareSync: process.env.REHEARSE_SYNC_COMPARE !== '0' });
      haLines.push(...failover.lines);
      for (const p of failover.problems) stats.fail(p);
    } else await step(`restart the app PostgreSQL (down ${OUTAGE_MS / 1000} s at least)`, async () => {
      const t0 = Date.now();
      await appDb.stop();
      await sleep(OUTAGE_MS);
      const downMs = Date.now() - t0;
      const t1 = Date.now();
      appDb = await startAppDb();
      return { downMs, upMs: Date.now() - t1 };
    });
    await sleep(STEADY_MS);
  } finally {
    log('load off; waiting for the loops to finish their current step');
    await load.stop();
  }
  const trafficSeconds = (Date.now() - trafficStarted) / 1000;
  const measured = [
    `Temporal:   ${CLUSTER ? 'a cluster (2 frontends behind HAProxy, 2 history, 2 matching, 1 worker; 16 shards)' : 'one server (all four services; 4 shards)'}`,
    `  the same steps in both modes (load with the APIs and workers rolled), ${sameSteps.seconds.toFixed(0)} s:`,
    ...(['pay', 'refund'] as const).map((k) => `    ${latencyLine(k, timing.samples[k].slice(0, sameSteps[k]), sameSteps.seconds)}`),
    ...sameSteps.usage.map((u) => `    ${u}`),
    `  the whole load, its Temporal faults included, ${trafficSeconds.toFixed(0)} s:`,
    ...(['pay', 'refund'] as const).map((k) => `    ${latencyLine(k, timing.samples[k], trafficSeconds)}`),
  ];

  log('settling, then checking every money process and the ledger');
  const received = () => receiver.received.map((r) => ({ path: r.path, eventId: String(r.headers['x-webhook-id']) }));
  const checks = await checkOutcome(appDb.url(), businesses, received, { resent: POSTGRES_HA });
  const report = formatReport({ root, stats, figures: load.figures, steps, checks, trafficSeconds, totalSeconds: (Date.now() - started) / 1000, uiOrigin: temporal.uiOrigin });
  process.stdout.write(`${[report.text, ...(haLines.length ? ['PostgreSQL HA (Patroni):', ...haLines] : []), ...measured].join('\n')}\n`);
  exitCode = report.ok ? 0 : 1;
} catch (err) {
  process.stderr.write(`rehearse: FAILED to run: ${(err as Error).stack ?? err}\nrehearse: logs under ${root}/logs\n`);
} finally {
  for (const step of cleanup) await step().catch((err) => log(`stopping: ${(err as Error).message}`));
  await stopAll(20_000);
  // The databases were this run's alone; the logs stay.
  for (const dir of ['pg-temporal', 'pg-app', 'pg-ha', 'etcd-1', 'etcd-2', 'etcd-3']) rmSync(path.join(root, dir), { recursive: true, force: true });
}
process.exit(exitCode);
