import path from 'node:path';
import { migrate } from '../../src/db/orm.js';
import { openDatabase } from '../../src/main/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/dev/embedded-postgres.js';
import type { HttpClient } from '../support/http.js';
import type { TestBusiness } from '../support/stack.js';
import { until } from './support/flows.js';
import { expectCleanAnswers, payAgainWherePending, retryFailedWrites, serviceForLoad, startLoad, type Call } from './support/load.js';
import { moneyProblems } from './support/money.js';
import { freePort } from '../../src/dev/free-port.js';
import type { ApiProcess } from '../support/stack-processes.js';
import type { ServiceProcess } from '../support/processes.js';
import { useStack } from '../support/use-stack.js';
import { sql } from '../support/payments.js';

/**
 * PostgreSQL of its own (embedded, so the test can stop and start it), restarted (a fast shutdown: every
 * session terminated, every open transaction rolled back) while an API process and a worker process
 * carry steady traffic. Requests in flight either succeed or answer the 503 envelope; once PostgreSQL is
 * back, the failed ones retried with their keys succeed, every workflow finishes, and nothing is doubled.
 */
let db: EmbeddedDatabase;
let dbPort: number;
const dbDir = () => path.join(process.env.TEST_ROOT!, 'faults', 'pg-restart');
let api: ApiProcess;
let worker: ServiceProcess;
let http: HttpClient;
let biz: TestBusiness;
let calls: Call[] = [];

const stack = useStack(async () => {
  dbPort = await freePort();
  db = await startEmbeddedPostgres({ databaseDir: dbDir(), port: dbPort, database: 'payments' });
  const orm = await openDatabase(db.url());
  await migrate(orm);
  await orm.close();
  return { DATABASE_URL: db.url(), WITHDRAWAL_PROCESSING_DELAY: '1s' };
}, { processes: 'pg_restart' });
afterAll(async () => db?.stop());

beforeAll(async () => {
  ({ worker, api, http, biz } = await serviceForLoad(stack));
}, 180_000);

describe('PostgreSQL restarted under load', () => {
  it('every request in flight succeeds or answers 503 in the error envelope; the processes stay up', async () => {
    const load = startLoad(http, biz);
    await until('some traffic', async () => load.calls.filter((c) => c.res?.status === 201).length >= 10, 60_000);
    await db.stop();
    await new Promise((r) => setTimeout(r, 3_000));
    db = await startEmbeddedPostgres({ databaseDir: dbDir(), port: dbPort, database: 'payments' });
    await new Promise((r) => setTimeout(r, 3_000));
    calls = await load.stop();

    expect(expectCleanAnswers(calls).length).toBeGreaterThan(0);
    expect(api.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
  }, 120_000);

  it('retried with their keys, the failed requests succeed, and no withdrawal or session is made twice', async () => {
    await retryFailedWrites(http, calls, biz.testKey);
    const withdrawalIds = calls.filter((c) => c.op === 'withdrawal').map((c) => c.res!.body.data.id);
    const sessionIds = calls.filter((c) => c.op === 'session').map((c) => c.res!.body.data.id);
    expect(new Set(withdrawalIds).size).toBe(withdrawalIds.length);
    const rows = await sql(stack, 'select id from withdrawals where business_id = ?', [biz.id]);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(withdrawalIds));
    const sessions = await sql(stack, 'select id from checkout_sessions where business_id = ?', [biz.id]);
    expect(new Set(sessions.map((r) => r.id))).toEqual(new Set(sessionIds));
  }, 120_000);

  it('the workflows resume: every withdrawal is paid, every paid session completed once', async () => {
    // A payment whose answer was a 503 may or may not have gone through: the customer tries again if not.
    await payAgainWherePending(stack, http, calls);
    await until(
      'every withdrawal to be paid',
      async () => (await sql(stack, `select count(*)::int as n from withdrawals where business_id = ? and status <> 'completed'`, [biz.id]))[0].n === 0,
      90_000,
    );
    const paid = calls.filter((c) => c.op === 'pay').map((c) => c.path.split('/')[3]);
    await until(
      'every paid session to be completed',
      async () => (await sql(stack, `select count(*)::int as n from checkout_sessions where id in (?) and status = 'completed'`, [paid]))[0].n === paid.length,
      90_000,
    );
  }, 400_000);

  it('leaves ledger verify clean: no money created, lost or moved twice', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});
