/**
 * What a fault test holds in its own process: a database of its own (cloned from the migrated template,
 * so `ledger verify` sees only this file's money), a Temporal client, and a task queue no other test
 * file polls. The service itself runs in child processes (processes.ts) wired the same way.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { loadConfig } from '../../../src/config.js';
import { openDatabase } from '../../../src/main/database.js';
import { connectTemporalFor } from '../../../src/main/runtime.js';
import { createBusiness, DEMO_BUSINESS, type NewBusiness } from '../../../src/modules/businesses/business.service.js';
import { createHttpClient, type HttpClient } from '../../support/http.js';
import { TEMPLATE_DATABASE } from '../../support/names.js';
import type { TestBusiness } from '../../support/stack.js';
import type { Wiring } from './processes.js';

export interface FaultStack {
  databaseUrl: string;
  orm: MikroORM;
  temporal: Client;
  wiring: Wiring;
  business: (overrides?: Partial<NewBusiness>) => Promise<TestBusiness>;
  /** An HTTPS client for an API process's origin, trusting the test CA. */
  client: (origin: string) => HttpClient;
  sql: <T = any>(query: string, params?: unknown[]) => Promise<T[]>;
  stop: () => Promise<void>;
}

/** A fresh database `faults_<name>` on the server of `adminUrl`, cloned from the migrated template. */
export async function cloneDatabase(name: string, adminUrl = process.env.TEST_DATABASE_URL!): Promise<string> {
  const database = `faults_${name}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.query(`create database ${database} template ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function startFaultStack(
  name: string,
  opts: { databaseUrl?: string; temporalAddress?: string; env?: Record<string, string> } = {},
): Promise<FaultStack> {
  const databaseUrl = opts.databaseUrl ?? (await cloneDatabase(name));
  const temporalAddress = opts.temporalAddress ?? process.env.TEMPORAL_ADDRESS!;
  const taskQueue = `faults-${name}-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_TASK_QUEUE: taskQueue });
  const orm = await openDatabase(databaseUrl);
  const temporal = await connectTemporalFor(config);
  const ca = readFileSync(process.env.TEST_TLS_CA!);
  const clients: HttpClient[] = [];
  return {
    databaseUrl,
    orm,
    temporal,
    wiring: { databaseUrl, temporalAddress, taskQueue, env: opts.env },
    business: async (overrides = {}) => {
      const { business, keys } = await createBusiness(orm.em.fork(), { ...DEMO_BUSINESS, name: `Faults ${name}`, ...overrides });
      return { id: business.id, testKey: keys.find((k) => k.mode === 'test')!.secret, liveKey: keys.find((k) => k.mode === 'live')!.secret };
    },
    client: (origin) => {
      const client = createHttpClient(origin, ca);
      clients.push(client);
      return client;
    },
    sql: (query, params = []) => orm.em.getConnection().execute(query, params),
    stop: async () => {
      for (const client of clients) client.close();
      await temporal.connection.close();
      await orm.close();
    },
  };
}
