import path from 'node:path';
import { migrate } from '../../src/db/orm.js';
import { openDatabase } from '../../src/main/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/dev/embedded-postgres.js';
import type { HttpClient } from '../support/http.js';
import { addWalletMethod, creditAvailable, testMode } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { startFaultStack, type FaultStack } from './support/fault-stack.js';
import { until } from './support/flows.js';
import { payAgainIfPending, retryUntilDone, SERVICE_UNAVAILABLE, startLoad, type Call } from './support/load.js';
import { moneyProblems } from './support/money.js';
import { freePort } from '../../src/dev/free-port.js';
import { killAll, startApiProcess, startWorkerProcess, type ApiProcess, type ServiceProcess } from './support/processes.js';

/**
 * PostgreSQL of its own (embedded, so the test can stop and start it), restarted (a fast shutdown: every
 * session terminated, every open transaction rolled back) while an API process and a worker process
 * carry steady traffic. Requests in flight either succeed or answer the 503 envelope; once PostgreSQL is
 * back, the failed ones retried with their keys succeed, every workflow finishes, and nothing is doubled.
 */
let db: EmbeddedDatabase;
let dbPort: number;
const dbDir = () => path.join(process.env.TEST_ROOT!, 'faults', 'pg-restart');
let stack: FaultStack;
let api: ApiProcess;
let worker: ServiceProcess;
let http: HttpClient;
let biz: TestBusiness;
let calls: Call[] = [];

beforeAll(async () => {
  dbPort = await freePort();
  db = await startEmbeddedPostgres({ databaseDir: dbDir(), port: dbPort, database: 'payments' });
  const orm = await openDatabase(db.url());
  await migrate(orm);
  await orm.close();
  stack = await startFaultStack('pg_restart', { databaseUrl: db.url(), env: { WITHDRAWAL_PROCESSING_DELAY: '1s' } });
  worker = await startWorkerProcess(stack.wiring);
  api = await startApiProcess(stack.wiring);
  http = stack.client(api.origin);
  biz = await stack.business({ rateLimitTier: 'enterprise', rateLimitPerMinute: 6_000, rateLimitBurst: 6_000 });
  await addWalletMethod(stack.orm, biz.id);
  await creditAvailable(stack.orm, testMode(biz.id), 1_000_000);
}, 180_000);

afterAll(async () => {
  await killAll();
  await stack?.stop().catch(() => undefined);
  await db?.stop();
});

describe('PostgreSQL restarted under load', () => {
  it('every request in flight succeeds or answers 503 in the error envelope; the processes stay up', async () => {
    const load = startLoad(http, biz);
    await until('some traffic', async () => load.calls.filter((c) => c.res?.status === 201).length >= 10, 60_000);
    await db.stop();
    await new Promise((r) => setTimeout(r, 3_000));
    db = await startEmbeddedPostgres({ databaseDir: dbDir(), port: dbPort, database: 'payments' });
    await new Promise((r) => setTimeout(r, 3_000));
    calls = await load.stop();

    expect(calls.filter((c) => c.error !== null).map((c) => `${c.op}: ${c.error}`)).toEqual([]);
    const unclean = calls.filter((c) => ![200, 201, 503].includes(c.res!.status));
    expect(unclean.map((c) => `${c.op} ${c.res!.status} ${c.res!.text}`)).toEqual([]);
    const unavailable = calls.filter((c) => c.res!.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const c of unavailable) expect(c.res!.body).toEqual({ success: false, error: SERVICE_UNAVAILABLE });
    expect(api.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
  }, 120_000);

  it('retried with their keys, the failed requests succeed, and no withdrawal or session is made twice', async () => {
    // Each client retries on its own, at the same time as the others: one after another, n retries of up
    // to 90 s each could outlast the test's timeout and fail it without saying which request was late.
    await Promise.all(calls.filter((c) => c.res!.status === 503 && c.op !== 'pay').map(async (c) => (c.res = await retryUntilDone(http, c, biz.testKey))));
    const withdrawalIds = calls.filter((c) => c.op === 'withdrawal').map((c) => c.res!.body.data.id);
    const sessionIds = calls.filter((c) => c.op === 'session').map((c) => c.res!.body.data.id);
    expect(new Set(withdrawalIds).size).toBe(withdrawalIds.length);
    const rows = await stack.sql('select id from withdrawals where business_id = ?', [biz.id]);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(withdrawalIds));
    const sessions = await stack.sql('select id from checkout_sessions where business_id = ?', [biz.id]);
    expect(new Set(sessions.map((r) => r.id))).toEqual(new Set(sessionIds));
  }, 120_000);

  it('the workflows resume: every withdrawal is paid, every paid session completed once', async () => {
    // A payment whose answer was a 503 may or may not have gone through: the customer tries again if not.
    const sessionStatus = async (id: string) => (await stack.sql('select status from checkout_sessions where id = ?', [id]))[0].status as string;
    await Promise.all(calls.filter((c) => c.op === 'pay' && c.res!.status === 503).map((c) => payAgainIfPending(http, c, sessionStatus)));
    await until(
      'every withdrawal to be paid',
      async () => (await stack.sql(`select count(*)::int as n from withdrawals where business_id = ? and status <> 'completed'`, [biz.id]))[0].n === 0,
      90_000,
    );
    const paid = calls.filter((c) => c.op === 'pay').map((c) => c.path.split('/')[3]);
    await until(
      'every paid session to be completed',
      async () => (await stack.sql(`select count(*)::int as n from checkout_sessions where id in (?) and status = 'completed'`, [paid]))[0].n === paid.length,
      90_000,
    );
  }, 200_000);

  it('leaves ledger verify clean: no money created, lost or moved twice', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});
