/**
 * The real stack for a test file (or a run such as the soak): a database of its own (cloned from the
 * migrated template), a Temporal client and a task queue no other file polls, and the service on them.
 * By default the service runs in this process: the HTTPS API on a free port (`origin`, `http`) and a
 * worker. With `processes` it runs as real OS processes instead, which the test starts, SIGKILLs and
 * starts again (`stack.processes`, test/support/stack-processes.ts). Either way the stack makes the
 * businesses, gives the one test client (test/support/http.ts) for any of its APIs, and stops everything
 * it started.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { loadConfig, TEST_PAYLOAD_ENCRYPTION_KEYS, TEST_WEBHOOK_ENCRYPTION_KEY, type Config } from '../../src/config.js';
import { openDatabase } from '../../src/main/database.js';
import { createLogger } from '../../src/log.js';
import { dependencyWait } from '../../src/main/dependency-wait.js';
import { connectTemporalFor, startApi, startWorker } from '../../src/main/runtime.js';
import { createBusiness, DEMO_BUSINESS, type NewBusiness } from '../../src/modules/businesses/business.service.js';
import { createHttpClient, type HttpClient } from './http.js';
import { TEMPLATE_DATABASE, workerDatabaseName, workerTaskQueue } from './names.js';
import { sessionExpiryWorkflowId } from '../../contracts/workflow-ids.js';
import { killAll } from './processes.js';
import { stackProcesses, type StackProcesses, type Wiring } from './stack-processes.js';

/** What every stack has, wherever its service runs. */
export interface Stack {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  databaseUrl: string;
  /** What a process needs to join this stack: its database, Temporal, task queue and environment. */
  wiring: Wiring;
  /** The service's processes on this stack (an API, a worker, a test's own worker entry); killed by `stop`. */
  processes: StackProcesses;
  /** The one test client for an API of this stack (an API process's origin), closed by `stop`. */
  client: (origin: string) => HttpClient;
  /** A fresh business (approved unless told otherwise) and its test and live keys. */
  business: (overrides?: Partial<NewBusiness>) => Promise<TestBusiness>;
  stop: () => Promise<void>;
}

/** A stack whose API runs in this process. */
export interface TestStack extends Stack {
  origin: string;
  http: HttpClient;
}

export interface TestBusiness {
  id: string;
  testKey: string;
  liveKey: string;
}

export { TEST_WEBHOOK_ENCRYPTION_KEY };

/** The environment the service is configured from, over the test defaults below. */
export type StackEnv = Record<string, string>;

export interface StackOptions {
  /** No worker in this process (a test that starts its own, or runs none). */
  worker?: boolean;
  /**
   * The service as OS processes only, under this name: no API or worker here. The database is
   * `processes_<name>`, made afresh, and the task queue is new.
   */
  processes?: string;
  /** States no payment could produce (a `completed` session without its payment): a database apart. */
  fabricatesState?: boolean;
  /** A database apart, named by this, for a file that judges the whole database (a seeded history). */
  ownDatabase?: string;
  /** MikroORM options over the service's (a test that reads the statements the service runs). */
  orm?: Parameters<typeof openDatabase>[1];
}

/**
 * Waits until the worker has completed the expiry sweep's first workflow task (every worker starts the
 * sweep): a worker's first workflow task loads the workflow bundle into its V8 context, seconds of CPU on
 * a loaded machine, and a file's first payment used to pay for it inside its 10 s wait and be answered
 * `processing`. A stack is ready once its worker has run a workflow.
 */
async function firstWorkflowTaskDone(temporal: Client, workflowId: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { events } = await temporal.workflow.getHandle(workflowId).fetchHistory();
    if (events?.some((e) => e.workflowTaskCompletedEventAttributes)) return;
    if (Date.now() > until) throw new Error(`the worker ran no workflow task in ${timeoutMs / 1000} s (${workflowId})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A database `name` cloned from the migrated template: reused when it exists, or made afresh. */
async function templateClone(name: string, fresh: boolean): Promise<string> {
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (fresh) await admin.query(`drop database if exists ${name} with (force)`);
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await admin.query(`create database ${name} template ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * DATABASE_URL in the environment: that database, as it is (a PostgreSQL the test restarts, an empty one).
 * Otherwise a clone of the template: the jest worker's, shared by its files in turn; or one apart.
 */
function stackDatabase(env: StackEnv, opts: StackOptions): Promise<string> {
  if (env.DATABASE_URL) return Promise.resolve(env.DATABASE_URL);
  if (opts.processes) return templateClone(`processes_${opts.processes}`, true);
  // Tests that write states no payment could produce (to render a page) get a database of their own, so
  // `ledger verify` elsewhere sees only real money moves. So does a test that judges the whole database.
  const apart = opts.ownDatabase ?? (opts.fabricatesState ? 'fabricated' : undefined);
  return templateClone(apart ? `${workerDatabaseName()}_${apart}` : workerDatabaseName(), false);
}

export async function startStack(env: StackEnv, opts: StackOptions & { processes: string }): Promise<Stack>;
export async function startStack(env?: StackEnv, opts?: StackOptions): Promise<TestStack>;
export async function startStack(env: StackEnv = {}, opts: StackOptions = {}): Promise<TestStack | Stack> {
  const databaseUrl = await stackDatabase(env, opts);
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    // A queue of its own for each stack: workflows a file leaves behind (a delivery retrying to a receiver
    // that is gone, a timer not yet fired) must not take the next file's worker, nor its database.
    TEMPORAL_TASK_QUEUE: `${opts.processes ? `processes-${opts.processes}` : workerTaskQueue()}-${randomUUID().slice(0, 8)}`,
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // A fixed key, so no key file is generated under the repository's data directory.
    WEBHOOK_ENCRYPTION_KEY: TEST_WEBHOOK_ENCRYPTION_KEY,
    // The test key ring, also when a test runs the stack as production (NODE_ENV=test has it by default).
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    // Every test pays from 127.0.0.1: the per-address public limit is tested on its own, with its own figure.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    // And every test's wrong keys come from there too: the limit on 401s is tested on its own.
    AUTH_FAILURES_PER_MINUTE: '1000000',
    ...env,
  });
  const orm = await openDatabase(databaseUrl, opts.orm);
  const temporal = await connectTemporalFor(config);
  const ca = readFileSync(process.env.TEST_TLS_CA!);
  const clients: HttpClient[] = [];
  const client = (origin: string) => {
    const made = createHttpClient(origin, ca);
    clients.push(made);
    return made;
  };
  const wiring: Wiring = {
    databaseUrl,
    temporalAddress: config.temporal.address!,
    taskQueue: config.temporal.taskQueue,
    env: { WEBHOOK_ENCRYPTION_KEY: TEST_WEBHOOK_ENCRYPTION_KEY, ...env },
  };

  const log = createLogger(config.logLevel);
  const tls = () => ({ cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) });
  const worker = !opts.processes && opts.worker !== false ? await startWorker({ config, orm, temporal, log, wait: startupWait() }) : null;
  if (worker) await firstWorkflowTaskDone(temporal, sessionExpiryWorkflowId(config.temporal.taskQueue));
  const api = opts.processes ? null : await startApi({ config, orm, temporal, log, tls: tls() });
  const stack: Stack = {
    config,
    orm,
    temporal,
    databaseUrl,
    wiring,
    processes: stackProcesses(wiring),
    client,
    business: async (overrides = {}) => {
      const { business, keys } = await createBusiness(orm.em.fork(), { ...DEMO_BUSINESS, name: 'Test business', ...overrides });
      return {
        id: business.id,
        testKey: keys.find((k) => k.mode === 'test')!.secret,
        liveKey: keys.find((k) => k.mode === 'live')!.secret,
      };
    },
    stop: async () => {
      // The processes first: none may outlive the file, and none may find its database or Temporal gone mid-step.
      await stopStep('the processes', killAll);
      for (const made of clients) made.close();
      await stopStep('the API', () => api?.close());
      await stopStep('the worker', () => worker?.stop());
      await stopStep('the Temporal connection', () => temporal.connection.close());
      // Taken before the close: asked for during it, the ORM would open a new pool that nobody closes.
      const pool = (await orm.em.getConnection().getNativeClient().catch(() => null)) as unknown as PoolCounts | null;
      await stopStep('the database pool', () => orm.close(), () => poolState(pool));
    },
  };
  return api ? { ...stack, origin: api.origin, http: client(api.origin) } : stack;
}

/**
 * How a stack's worker waits for Temporal, as a worker process does (src/main/dependency-wait.ts), its
 * tries said on stderr: once in CI the dev server, loaded, failed a worker's namespace description for
 * 16 s (its SQLite interrupted), and the file failed in its beforeAll.
 */
const startupWait = () => dependencyWait({ log: createLogger('warn', process.stderr), timeoutMs: 120_000 });

interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The pool's connections while it closes: one still checked out is what its close waits for. */
const poolState = (pool: PoolCounts | null) => (pool ? ` (pool: ${pool.totalCount} connections, ${pool.idleCount} idle, ${pool.waitingCount} waiting for one)` : '');

/**
 * One step of a stack's stop. A step still running after 10 s says so on stderr, with its name: a hook
 * that times out (once, under stress-ng, after 60 s) otherwise names only the file.
 */
async function stopStep(name: string, run: () => unknown, state: () => string = () => ''): Promise<void> {
  const started = Date.now();
  const slow = setInterval(() => process.stderr.write(`test stack stop: ${name} still running after ${Math.round((Date.now() - started) / 1000)} s${state()}\n`), 10_000);
  try {
    await run();
  } finally {
    clearInterval(slow);
  }
}
