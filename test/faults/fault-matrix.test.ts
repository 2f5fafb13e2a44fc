import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { migrate } from '../../src/db/orm.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/dev/embedded-postgres.js';
import { freePort } from '../../src/dev/free-port.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-dev-server.js';
import { openDatabase } from '../../src/main/database.js';
import { failureConverterPath } from '../../src/temporal/payload-codec.js';
import { workflowInterceptorModules, workflowsPath } from '../../src/temporal/worker.js';
import type { HttpClient } from '../support/http.js';
import type { ServiceProcess } from '../support/processes.js';
import type { ApiProcess } from '../support/stack-processes.js';
import { useStack } from '../support/use-stack.js';
import { PaymentStatus } from '../../contracts/search-attributes.js';
import { CASES, END_BOUND_MS, FAULTS, failpoints, fundedBusiness, type Answer, type Fault, type MatrixContext, type Prepared } from './support/matrix.js';
import { eventually, payBody, sessionBody, sql } from '../support/payments.js';
import { IN_DOUBT_HOLD_MS } from '../../src/modules/checkout/pay-in-doubt.service.js';
import { moneyProblems } from './support/money.js';

/**
 * Every fault at every step boundary of a payment, a refund and a withdrawal, made to happen, not hoped
 * for: each case's request is stopped at its point (a failpoint in the API or the worker), and with all
 * of them held there the fault is injected (Temporal restarted, the worker or the API SIGKILLed,
 * PostgreSQL restarted). Then they are let go, and each must end within the bound, with its money moved
 * once and its sender told the truth; the ledger must verify. Each fault is a round of its own on the
 * same servers, with fresh records.
 */
let db: EmbeddedDatabase;
let temporal: TemporalDevServer;
let api: ApiProcess;
let worker: ServiceProcess & { adminOrigin: string };
let http: HttpClient;
const ports = { db: 0, temporal: 0, api: 0 };
const dirs = { db: () => path.join(process.env.TEST_ROOT!, 'faults', 'matrix-pg'), temporal: () => path.join(process.env.TEST_ROOT!, 'faults', 'matrix-temporal') };
const startDb = () => startEmbeddedPostgres({ databaseDir: dirs.db(), port: ports.db, database: 'payments' });
const startTemporal = () => startTemporalDevServer({ dataDir: dirs.temporal(), port: ports.temporal, uiPort: null, cliPath: process.env.TEMPORAL_CLI_PATH });

const stack = useStack(async () => {
  if (!process.env.TEMPORAL_CLI_PATH) throw new Error('TEMPORAL_CLI_PATH is needed to restart a dev server (npm run test:faults provisions it)');
  [ports.db, ports.temporal, ports.api] = [await freePort(), await freePort(), await freePort()];
  db = await startDb();
  const orm = await openDatabase(db.url());
  await migrate(orm);
  await orm.close();
  temporal = await startTemporal();
  // Bundled once, so a worker started again after its SIGKILL polls within seconds rather than a minute.
  const bundle = path.join(process.env.TEST_ROOT!, 'faults', 'matrix-workflow-bundle.js');
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, failureConverterPath, logger: quiet });
  writeFileSync(bundle, code);
  return { DATABASE_URL: db.url(), TEMPORAL_ADDRESS: temporal.address, FAILPOINTS: 'true', WORKFLOW_BUNDLE_PATH: bundle, WITHDRAWAL_PROCESSING_DELAY: '2s' };
}, { processes: 'fault_matrix' });
afterAll(async () => {
  await temporal?.stop();
  await db?.stop();
});

const quiet = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} } as never;
const startApi = async () => {
  api = await stack.processes.api({ port: ports.api });
  http = stack.client(api.origin);
};
beforeAll(async () => {
  worker = await stack.processes.worker();
  await startApi();
}, 180_000);

/**
 * How long Temporal stays down: longer than a pay call's wait (10 s) and than the Temporal client's own
 * retries (10 attempts backing off to 5 s, about 20 s), so that an update the server held only in memory
 * is gone for good, as in a real outage, rather than sent again by a client still retrying.
 */
const TEMPORAL_DOWN_MS = 30_000;

const inject: Record<Fault, () => Promise<void>> = {
  'Temporal restart': async () => {
    await temporal.stop();
    await new Promise((r) => setTimeout(r, TEMPORAL_DOWN_MS));
    temporal = await startTemporal();
  },
  'worker SIGKILL': async () => {
    await worker.kill();
    worker = await stack.processes.worker();
  },
  'API SIGKILL': async () => {
    await api.kill();
    await startApi();
  },
  'PostgreSQL restart': async () => {
    await db.stop();
    db = await startDb();
  },
};

describe.each(FAULTS)('%s at each step boundary', (fault) => {
  const held = new Map<string, { prepared: Prepared; answer: Promise<Answer> }>();

  beforeAll(async () => {
    const ctx: MatrixContext = { stack, http: () => http, business: () => fundedBusiness(stack), fault };
    const prepared = await Promise.all(CASES.map(async (c) => ({ c, prepared: await c.prepare(ctx) })));
    const adminOf = (at: 'api' | 'worker') => (at === 'api' ? api.adminOrigin : worker.adminOrigin);
    for (const { c, prepared: p } of prepared) await failpoints.arm(adminOf(c.at), c.point, p.key);
    for (const { c, prepared: p } of prepared) held.set(c.title, { prepared: p, answer: p.send() });
    // Every request stopped at its point, and there in fact: the records say so.
    const expected = prepared.map(({ c, prepared: p }) => ({ at: c.at, id: `${c.point}/${p.key}` }));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const waiting = new Map([...(await failpoints.reached(api.adminOrigin)), ...(await failpoints.reached(worker.adminOrigin))]);
      const missing = expected.filter((e) => !(waiting.get(e.id)! > 0)).map((e) => e.id);
      if (!missing.length) break;
      if (Date.now() > deadline) throw new Error(`never reached: ${missing.join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const { prepared: p } of prepared) await p.atPoint();
    await inject[fault]();
    for (const process of [api, worker]) await failpoints.releaseAll(process.adminOrigin).catch(() => undefined);
  }, 240_000);

  it.each(CASES.map((c) => [c.title]))('%s: ends within the bound, moves the money once, and tells the truth', async (title) => {
    const { prepared, answer } = held.get(title)!;
    await prepared.settle(await answer);
  }, 240_000);

  if (fault === 'Temporal restart') {
    it('settles the payment whose update the restart lost, visibly: its PaymentStatus, a log line and a metric', async () => {
      const lost = CASES.find((c) => c.point === 'pay.after-begin')!;
      const sessionId = held.get(lost.title)!.prepared.key;
      const handle = stack.temporal.workflow.getHandle(`checkout-${sessionId}`);
      expect(await handle.result()).toBe('closed');
      expect((await handle.describe()).typedSearchAttributes.get(PaymentStatus)).toBe('failed');
      expect(worker.output()).toContain(`payment in doubt settled: session ${sessionId} failed (no charge under the session's key)`);
      const metrics = await (await fetch(`${worker.adminOrigin}/metrics`)).text();
      expect(metrics).toMatch(/^payments_settled_total\{outcome="failed"\} [1-9]/m);
    });
  }

  it('leaves ledger verify clean, every refund and withdrawal with exactly its postings', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});

/**
 * Two faults that overlap at the pay call's worst moment: its own `beginPayment` has committed (the worker
 * holds the task open), the call's wait has ended unanswered, and then PostgreSQL goes away before the call
 * reads the session to answer. Before the in-doubt answer (pay-in-doubt.service.ts) the failed read fell
 * through to a plain 503, and the payment then went on and charged the card of a customer told to retry.
 */
describe('PostgreSQL stopped while a pay waits to answer, after its own beginPayment committed', () => {
  // Back within the call's hold (the database answers), and down past it (Temporal's word that it holds the update answers).
  it.each([5_000, IN_DOUBT_HOLD_MS + 5_000])('down %i ms: answers what stays true, a 503 never followed by a charge, processing ending completed', async (downMs) => {
    const biz = await fundedBusiness(stack);
    const sessionId: string = (await http.post('/api/checkout/sessions', sessionBody(), { key: biz.testKey })).body.data.id;
    await failpoints.arm(worker.adminOrigin, 'pay.after-begin', sessionId);
    await failpoints.arm(api.adminOrigin, 'pay.before-answer', sessionId);
    const answer = http.post(`/api/checkout/${sessionId}/pay`, payBody(), { expect5xx: true });
    // The API gets there after its 10 s wait, unanswered: the worker still holds the task.
    await eventually('both failpoints reached', async () => {
      const waiting = new Map([...(await failpoints.reached(api.adminOrigin)), ...(await failpoints.reached(worker.adminOrigin))]);
      return waiting.get(`pay.before-answer/${sessionId}`)! > 0 && waiting.get(`pay.after-begin/${sessionId}`)! > 0;
    }, 60_000);
    expect((await sql(stack, 'select status from checkout_sessions where id = ?', [sessionId]))[0].status).toBe('processing');

    await db.stop();
    await failpoints.releaseAll(api.adminOrigin);
    await new Promise((r) => setTimeout(r, downMs)); // the call finds the database gone, and keeps finding it so
    db = await startDb();
    await failpoints.releaseAll(worker.adminOrigin);

    const res = await answer;
    const ended = await eventually('the payment ended', async () => {
      const [row] = await sql(stack, 'select status from checkout_sessions where id = ?', [sessionId]);
      return row.status === 'completed' || row.status === 'failed' ? row.status : null;
    }, END_BOUND_MS);
    const [charges] = await sql(stack, `select count(*)::int as n from simulator_charges where idempotency_key = ? and status = 'succeeded'`, [sessionId]);
    // The payment began before the fault, so no answer but its own outcome is true: it is charged once and completes.
    expect({ status: res.status, told: res.body?.data?.status, ended, charges: charges.n }).toEqual({
      status: 200,
      told: expect.stringMatching(/^(processing|completed)$/),
      ended: 'completed',
      charges: 1,
    });
    // What an operator finds: the API's warn line naming the session and its answer, and the metric.
    expect(api.output()).toContain(`pay in doubt: session ${sessionId}, its database gone when the call came to answer, answered ${res.body.data.status}`);
    const metrics = await (await fetch(`${api.adminOrigin}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^pay_answers_in_doubt_total\\{answer="${res.body.data.status}"\\} [1-9]`, 'm'));
    expect(await moneyProblems(stack.orm)).toEqual([]);
  }, 240_000);
});
