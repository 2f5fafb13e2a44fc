/**
 * The real stack for an integration test file: this jest worker's own database (cloned from the
 * migrated template), a Temporal client and an in-process worker on a task queue of its own, and the
 * HTTPS API on a free port.
 */
import { readFileSync } from 'node:fs';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { loadConfig, TEST_PAYLOAD_ENCRYPTION_KEYS, TEST_WEBHOOK_ENCRYPTION_KEY, type Config } from '../../src/config.js';
import { openDatabase } from '../../src/main/database.js';
import { createLogger } from '../../src/log.js';
import { connectTemporalFor, startApi, startWorker } from '../../src/main/runtime.js';
import { createBusiness, DEMO_BUSINESS, type NewBusiness } from '../../src/modules/businesses/business.service.js';
import { createHttpClient, type HttpClient } from './http.js';
import { TEMPLATE_DATABASE, workerDatabaseName, workerTaskQueue } from './names.js';

export interface TestStack {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  origin: string;
  http: HttpClient;
  databaseUrl: string;
  /** A fresh business (approved unless told otherwise) and its test and live keys. */
  business: (overrides?: Partial<NewBusiness>) => Promise<TestBusiness>;
  stop: () => Promise<void>;
}

export interface TestBusiness {
  id: string;
  testKey: string;
  liveKey: string;
}

export { TEST_WEBHOOK_ENCRYPTION_KEY };

async function workerDatabaseUrl(fabricatesState = false, ownDatabase?: string): Promise<string> {
  const adminUrl = process.env.TEST_DATABASE_URL!;
  // Tests that write states no payment could produce (a `completed` session without its payment, to
  // render a page) get a database of their own, so `ledger verify` elsewhere sees only real money moves.
  // So does a test that must judge the whole database (`ownDatabase`), such as a seeded history.
  const name = ownDatabase ? `${workerDatabaseName()}_${ownDatabase}` : fabricatesState ? `${workerDatabaseName()}_fabricated` : workerDatabaseName();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await admin.query(`create database ${name} template ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startStack(
  env: Record<string, string> = {},
  opts: {
    worker?: boolean;
    fabricatesState?: boolean;
    ownDatabase?: string;
    /** MikroORM options over the service's (a test that reads the statements the service runs). */
    orm?: Parameters<typeof openDatabase>[1];
  } = {},
): Promise<TestStack> {
  const databaseUrl = await workerDatabaseUrl(opts.fabricatesState, opts.ownDatabase);
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: workerTaskQueue(),
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // A fixed key, so no key file is generated under the repository's data directory.
    WEBHOOK_ENCRYPTION_KEY: TEST_WEBHOOK_ENCRYPTION_KEY,
    // The test key ring, also when a test runs the stack as production (NODE_ENV=test has it by default).
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    // Every test pays from 127.0.0.1: the per-address public limit is tested on its own, with its own figure.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  const log = createLogger(config.logLevel);
  const orm = await openDatabase(databaseUrl, opts.orm);
  const temporal = await connectTemporalFor(config);
  const worker = opts.worker === false ? null : await startWorker({ config, orm, temporal, log });
  const tls = { cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) };
  const api = await startApi({ config, orm, temporal, log, tls });
  const http = createHttpClient(api.origin, readFileSync(process.env.TEST_TLS_CA!));
  return {
    config,
    orm,
    temporal,
    origin: api.origin,
    http,
    databaseUrl,
    business: async (overrides = {}) => {
      const { business, keys } = await createBusiness(orm.em.fork(), { ...DEMO_BUSINESS, name: 'Test business', ...overrides });
      return {
        id: business.id,
        testKey: keys.find((k) => k.mode === 'test')!.secret,
        liveKey: keys.find((k) => k.mode === 'live')!.secret,
      };
    },
    stop: async () => {
      await api.close();
      await worker?.stop();
      await temporal.connection.close();
      await orm.close();
    },
  };
}
