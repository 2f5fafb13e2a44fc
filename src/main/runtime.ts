import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client, } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { migrate } from '../db/orm.js';
import { openDatabase } from './database.js';
import { assertMigrated } from '../db/migration-check.js';
import { noWait, type Wait } from './dependency-wait.js';
import { embeddedUrl } from '../dev/embedded-url.js';
import { createApp, type ApiDeps } from '../api/app.js';
import { listen } from '../http/server.js';
import { type PaymentProcessor, refusingLive } from '../modules/processor/index.js';
import { paymentProcessor } from './payment-processor.js';
import { createOutboxDispatcher, type OutboxDispatcher, startOutboxRelay } from '../modules/outbox/index.js';
import { startRowCountFolder } from '../modules/lists/index.js';
import {
  createDeliveryAttempts,
  createWebhookTransport,
  type WebhookTransport,
  createEventFanout,
  createFirstAttempts,
  type FirstAttempts,
  webhookEncryptionKey,
} from '../modules/webhooks/index.js';
import { createApiKeyCache, type KnownKey } from '../modules/businesses/index.js';
import { disputeBlockingRefund, disputeIdOfSession } from '../modules/disputes/index.js';
import { stripeEvidenceProblems } from '../modules/stripe/index.js';
import { connectTemporal, eagerStartClient } from '../temporal/client.js';
import { payloadKeysFor } from '../temporal/payload-codec.js';
import { ensureRetentionSchedule, ensureSessionExpirySweep } from '../temporal/schedules.js';

/**
 * The pieces every process is made of, wired the same way by `npm start`, the API and worker entry
 * points and the integration tests.
 */
export const defaultDatabaseUrl = (config: Config) => config.databaseUrl ?? embeddedUrl(config.dev.postgresPort);
export const defaultTemporalAddress = (config: Config) => config.temporal.address ?? `127.0.0.1:${config.dev.temporalPort}`;
export const embeddedDatabaseDir = (config: Config) => path.join(config.dataDir, 'pg');

/** The ORM's own lines (the migrator's progress, statements) on stderr, when DEBUG_ORM asks for them. */
const ormLogging = (config: Pick<Config, 'debugOrm'>) => (config.debugOrm ? { logger: (message: string) => void process.stderr.write(`${message}\n`) } : {});

export async function openMigratedDatabase(databaseUrl: string, config: Pick<Config, 'debugOrm'>): Promise<MikroORM> {
  const orm = await openDatabase(databaseUrl, ormLogging(config));
  await migrate(orm);
  return orm;
}

/** host:port of a database URL, for a log line: never its user or password. */
const databaseHost = (url: string) => new URL(url).host;

/**
 * The database of an API or worker process, once PostgreSQL answers (`wait`: a starting process's
 * backoff, src/main/dependency-wait.ts). In development and tests it migrates at start (under the
 * migrator's lock), so one command runs everything; in production `node dist/migrate.js` is the deploy's
 * own step, and the process only waits until it has run (src/db/migration-check.ts).
 */
export async function openDatabaseFor(config: Config, wait: Wait): Promise<MikroORM> {
  const url = defaultDatabaseUrl(config);
  // Opening connects nothing: the pool connects at the first statement, which the wait repeats.
  const orm = await openDatabase(url, ormLogging(config));
  try {
    await wait(`PostgreSQL at ${databaseHost(url)}`, () => orm.em.fork().execute('select 1'));
    if (config.env === 'production') await wait('migrations', () => assertMigrated(orm));
    else await migrate(orm);
  } catch (err) {
    await orm.close();
    throw err;
  }
  return orm;
}

/** `firstAttempts`: a worker's, whose fan-out sends each delivery's first attempt itself. */
export function outboxFor(orm: MikroORM, temporal: Client, config: Config, log: Logger, firstAttempts?: FirstAttempts): OutboxDispatcher {
  const taskQueue = config.temporal.taskQueue;
  return createOutboxDispatcher({
    orm,
    temporal,
    taskQueue,
    log,
    handlers: {
      'event.fanout': createEventFanout({ orm, temporal, taskQueue, log, retryDelaysMs: config.webhooks.retryDelaysMs, firstAttempts }),
    },
  });
}

export async function startApi(opts: {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  log: Logger;
  tls?: { cert: Buffer; key: Buffer };
}): Promise<{ port: number; origin: string; close: () => Promise<void>; deps: ApiDeps }> {
  const { config, orm, temporal, log } = opts;
  webhookEncryptionKey(config); // fails start-up now, not at the first webhook call, when it is missing
  const dispatcher = outboxFor(orm, temporal, config, log);
  // Work still running for this process: handlers whose client went away, and fast-path dispatches.
  // Closing waits for it, so the pools are never closed under a request.
  const inFlight = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => {});
  };
  // The origin is known only once the port is bound (port 0 in tests), so the app reads it lazily.
  const deps: ApiDeps = {
    config,
    orm,
    temporal,
    log,
    checkoutBaseUrl: config.checkoutBaseUrl ?? '',
    processor: paymentProcessor(config, { log }),
    disputeOfSession: disputeIdOfSession,
    disputeBlockingRefund,
    acquirerEvidenceRules: { stripe: stripeEvidenceProblems },
    afterCommit: (entries) => {
      track(dispatcher.dispatchClaimed(entries).catch((err) => log.warn({ err }, 'outbox fast path failed; the relay will retry')));
    },
    apiKeys: config.http.apiKeyCache ? createApiKeyCache<KnownKey>(orm, log, config.http.apiKeyCache) : undefined,
  };
  const app = createApp(deps);
  // Every request's handler too, counted rather than kept in the set: a Set entry and two promises a
  // request were measurable on the busiest request (docs/benchmark.md).
  let handling = 0;
  let whenHandled: (() => void) | undefined;
  const handled = () => {
    if (--handling === 0) whenHandled?.();
  };
  app.middleware.unshift((_ctx, next) => {
    handling++;
    const result = next();
    result.then(handled, handled);
    return result;
  });
  const server = await listen(app, {
    host: config.http.host,
    port: config.http.port,
    tls: opts.tls,
    readTimeoutMs: config.http.intake.readTimeoutMs,
    bodyTotalMs: config.http.intake.totalTimeoutMs,
    sendTimeoutMs: config.http.sendTimeoutMs,
  });
  const scheme = opts.tls ? 'https' : 'http';
  const origin = `${scheme}://localhost:${server.port}`;
  if (!config.checkoutBaseUrl) deps.checkoutBaseUrl = origin;
  const close = async () => {
    await server.close();
    while (handling || inFlight.size) {
      if (handling) await new Promise<void>((resolve) => (whenHandled = resolve));
      await Promise.allSettled([...inFlight]);
    }
    await deps.apiKeys?.close();
  };
  return { port: server.port, origin, close, deps };
}

export async function startWorker(opts: {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  log: Logger;
  connection?: NativeConnection;
  /** The processor the activities call, a test's fake; absent: the configured one (`paymentProcessor`: the simulator, by mode Stripe's). */
  processor?: PaymentProcessor;
  /**
   * How webhook attempts reach receivers; node's https with the configured CA when absent. `npm run fuzz`
   * gives one that opens no connection, as the URLs its fuzzer registers may name any host.
   */
  webhookTransport?: WebhookTransport;
  /** How a starting worker process waits for Temporal (src/main/dependency-wait.ts); absent: one try. */
  wait?: Wait;
}): Promise<{ worker: Worker; running: Promise<void>; stop: () => Promise<void> }> {
  const { config, orm, temporal, log } = opts;
  // Loaded here, not at the top: the worker SDK (its bundler, the activities) is most of what a process
  // loads, and an API process never needs it. That is a second or so of every API start.
  const { connectWorker, createWorker } = await import('../temporal/worker.js');
  const address = defaultTemporalAddress(config);
  const connection = opts.connection ?? (await (opts.wait ?? noWait)(`Temporal at ${address}`, () => connectWorker({ ...config.temporal, address }, log)));
  const webhooks = {
    encryptionKey: webhookEncryptionKey(config),
    caFile: config.webhooks.caFile,
    allowPrivateUrls: config.webhooks.allowPrivateUrls,
    disableAfterMs: config.webhooks.disableAfterMs,
    // One pool of kept-alive connections to receivers, for the activities' attempts and the fan-out's.
    transport: opts.webhookTransport ?? createWebhookTransport({ caFile: config.webhooks.caFile, allowPrivateUrls: config.webhooks.allowPrivateUrls }),
  };
  // Live mode fails closed: with live payments refused, the processor declines every live money move.
  const processor = opts.processor
    ? config.livePayments === 'refused'
      ? refusingLive(opts.processor)
      : opts.processor
    : paymentProcessor(config, { orm, log });
  // Each delivery's first attempt, sent by the relay's fan-out and awaited by the workflow's own (docs/decisions.md, Hot paths).
  const firstAttempts = createFirstAttempts(createDeliveryAttempts({ orm, log, webhooks }), log, config.webhooks.retryDelaysMs);
  // The worker describes its namespace as it is made, and a server that answers the connect may still fail
  // that (a loaded dev server's SQLite read interrupted, in CI once; a cluster's frontend before its history
  // service; a namespace not registered yet): a starting process waits for the description as for the
  // connect. Asked here, not by retrying the make: a failed make leaves its workflow threads running.
  const { namespace } = config.temporal;
  await (opts.wait ?? noWait)(`Temporal's namespace ${namespace} at ${address}`, () => connection.workflowService.describeNamespace({ namespace }));
  const worker = await createWorker(connection, { ...config.temporal, encryptionKeys: payloadKeysFor(config) }, {
    orm,
    log,
    webhooks,
    firstAttempts,
    processor,
    sessionTtlMs: config.sessionTtlMs,
    disputes: config.disputes,
  });
  await ensureRetentionSchedule(temporal, config.temporal.taskQueue);
  await ensureSessionExpirySweep(temporal, config.temporal.taskQueue);
  const running = worker.run();
  // The relay starts workflows over the worker's own connection, eagerly (src/temporal/client.ts).
  const relayTemporal = eagerStartClient(connection, { namespace: config.temporal.namespace, encryptionKeys: payloadKeysFor(config) });
  const stopRelay = startOutboxRelay(outboxFor(orm, relayTemporal, config, log, firstAttempts), orm, log);
  const stopFolder = startRowCountFolder(orm, log);
  return {
    worker,
    running,
    stop: async () => {
      await stopRelay();
      await firstAttempts.settled();
      await stopFolder();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      if (!opts.connection) await connection.close();
    },
  };
}

export async function connectTemporalFor(config: Config, opts: { address?: string; connectTimeoutMs?: number } = {}): Promise<Client> {
  return connectTemporal({ ...config.temporal, address: opts.address ?? defaultTemporalAddress(config), connectTimeoutMs: opts.connectTimeoutMs, encryptionKeys: payloadKeysFor(config) });
}
