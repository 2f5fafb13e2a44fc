import path from 'node:path';
import { startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-dev-server.js';
import type { HttpClient } from '../support/http.js';
import type { TestBusiness } from '../support/stack.js';
import { paidSession, until, walletWithdrawal, workflowResult } from './support/flows.js';
import { expectCleanAnswers, payAgainWherePending, retryFailedWrites, serviceForLoad, startLoad, type Call } from './support/load.js';
import { moneyProblems } from './support/money.js';
import { freePort } from '../../src/dev/free-port.js';
import type { ApiProcess } from '../support/stack-processes.js';
import type { ServiceProcess } from '../support/processes.js';
import { useStack } from '../support/use-stack.js';
import { sql } from '../support/payments.js';

/**
 * A Temporal dev server of its own, stopped and started again on the same SQLite file while an API
 * process and a worker process carry steady traffic, with workflows waiting on timers (withdrawals in
 * their processing delay, a reserve before its release). While it is down the API answers cleanly
 * (writes that need no workflow succeed, their workflow starts wait in the outbox, sessions start none; a payment answers
 * 503); afterwards every workflow, old or new, resumes and finishes.
 */
let temporal: TemporalDevServer;
let temporalPort: number;
const temporalDir = () => path.join(process.env.TEST_ROOT!, 'faults', 'temporal-restart');
const startTemporal = () =>
  startTemporalDevServer({ dataDir: temporalDir(), port: temporalPort, uiPort: null, cliPath: process.env.TEMPORAL_CLI_PATH });

let api: ApiProcess;
let worker: ServiceProcess;
let http: HttpClient;
let biz: TestBusiness;
let calls: Call[] = [];
const before = { withdrawals: [] as string[], reserve: '' };

const stack = useStack(async () => {
  if (!process.env.TEMPORAL_CLI_PATH) throw new Error('TEMPORAL_CLI_PATH is needed to restart a dev server (npm run test:faults provisions it)');
  temporalPort = await freePort();
  temporal = await startTemporal();
  return { TEMPORAL_ADDRESS: temporal.address, WITHDRAWAL_PROCESSING_DELAY: '8s' };
}, { processes: 'temporal_restart' });
afterAll(async () => temporal?.stop());

beforeAll(async () => {
  ({ worker, api, http, biz } = await serviceForLoad(stack, { reserveHoldMs: 8_000 }));
}, 180_000);

describe('Temporal restarted under load', () => {
  it('while it is down the API answers cleanly; the processes stay up', async () => {
    // Workflows that will be waiting on a timer when the server stops.
    const session = await paidSession(http, biz.testKey);
    [{ id: before.reserve }] = await sql(stack, 'select id from reserves where payment_id = ?', [session.id]);
    for (let i = 0; i < 3; i++) {
      const res = await http.post('/api/withdrawals', walletWithdrawal(2), { key: biz.testKey });
      expect(res.status).toBe(201);
      before.withdrawals.push(res.body.data.id);
    }
    await until('the withdrawal workflows to start', async () => {
      const described = await Promise.all(before.withdrawals.map((id) => stack.temporal.workflow.getHandle(`withdrawal-${id}`).describe()));
      return described.every((d) => d.status.name === 'RUNNING');
    });

    const load = startLoad(http, biz);
    await until('some traffic', async () => load.calls.filter((c) => c.res?.status === 201).length >= 6, 60_000);
    await temporal.stop();
    const down = load.calls.length;
    // Longer than a pay call's 10 s wait, so some payments meet the deadline with Temporal still down.
    await new Promise((r) => setTimeout(r, 12_000));
    const whileDown = load.calls.slice(down);
    temporal = await startTemporal();
    await new Promise((r) => setTimeout(r, 3_000));
    calls = await load.stop();

    expectCleanAnswers(calls);
    // Creating a session or a withdrawal needs no Temporal: those kept succeeding. A payment cannot run.
    expect(whileDown.filter((c) => c.op !== 'pay' && c.res!.status === 201).length).toBeGreaterThan(0);
    // A session starts no workflow at all (the expiry sweep finds it later): every create succeeded.
    expect(whileDown.filter((c) => c.op === 'session').map((c) => c.res!.status)).toEqual(
      whileDown.filter((c) => c.op === 'session').map(() => 201),
    );
    expect(whileDown.filter((c) => c.op === 'pay' && c.res!.status === 503).length).toBeGreaterThan(0);
    expect(api.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
  }, 120_000);

  it('every workflow resumes and finishes: the ones waiting on timers and the ones started after', async () => {
    // A customer whose payment got a 503 pays again.
    await payAgainWherePending(stack, http, calls);
    await retryFailedWrites(http, calls, biz.testKey);

    const reserveRelease = await workflowResult(stack.temporal, `reserve-release-${before.reserve}`);
    expect(reserveRelease).toBe('released');
    const withdrawalIds = [...before.withdrawals, ...calls.filter((c) => c.op === 'withdrawal').map((c) => c.res!.body.data.id as string)];
    const results = await Promise.all(withdrawalIds.map((id) => workflowResult(stack.temporal, `withdrawal-${id}`)));
    expect(new Set(results)).toEqual(new Set(['completed']));
    const paid = calls.filter((c) => c.op === 'pay').map((c) => c.path.split('/')[3]);
    // An activity that finished while the server was down lost its completion; Temporal runs it again
    // once its start-to-close timeout (30 s) has passed, so a payment in flight then may take that long.
    // A payment whose update the restart lost after its first step is settled by its workflow within
    // about a minute: completed if the card was charged, failed (processing_error) if not.
    await until(
      'every paid session to end',
      async () => (await sql(stack, `select count(*)::int as n from checkout_sessions where id in (?) and status in ('completed', 'failed')`, [paid]))[0].n === paid.length,
      120_000,
    ).catch(async () => {
      // Say which sessions, and what their workflows are doing, rather than only that some are late.
      const late = await sql(stack, `select id, status from checkout_sessions where id in (?) and status not in ('completed', 'failed')`, [paid]);
      const workflows = await Promise.all(
        late.map(async (s: { id: string }) => {
          const d = await stack.temporal.workflow.getHandle(`checkout-${s.id}`).describe();
          return { ...s, workflow: d.status.name, pendingActivities: d.raw.pendingActivities?.map((a) => a.activityType?.name) };
        }),
      );
      throw new Error(`paid sessions never ended: ${JSON.stringify(workflows)}`);
    });
    // A session that failed was never charged, and its customer was never told it was paid.
    const failed = await sql(stack, `select id, failure_code from checkout_sessions where id in (?) and status = 'failed'`, [paid]);
    for (const session of failed) {
      expect(session.failure_code).toBe('processing_error');
      expect(await sql(stack, `select count(*)::int as n from simulator_charges where idempotency_key = ? and status = 'succeeded'`, [session.id])).toEqual([{ n: 0 }]);
      const told = calls.filter((c) => c.op === 'pay' && c.path.includes(session.id)).map((c) => c.res!.body?.data?.status);
      expect(told).not.toContain('completed');
    }
    const undispatched = () => sql(stack, `select id, message->>'kind' as kind, attempts, last_error from outbox where dispatched_at is null`);
    await until('the outbox to drain', async () => (await undispatched()).length === 0, 60_000).catch(async () => {
      throw new Error(`outbox rows never dispatched: ${JSON.stringify(await undispatched())}`);
    });
  }, 600_000); // above the sum of its bounded waits (150 + 90 + 60 + 120 + 60 s), so a late step fails with its own name

  it('made nothing twice', async () => {
    const withdrawalIds = calls.filter((c) => c.op === 'withdrawal').map((c) => c.res!.body.data.id);
    const rows = await sql(stack, 'select id from withdrawals where business_id = ?', [biz.id]);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set([...before.withdrawals, ...withdrawalIds]));
  });

  it('leaves ledger verify clean: no money created, lost or moved twice', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});
