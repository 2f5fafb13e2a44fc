import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../src/config.js';
import { freePort } from '../../src/dev/free-port.js';
import { parse } from '../../src/domain/validation.js';
import { payInput } from '../../src/modules/checkout/pay.schemas.js';
import { payableSession, payCheckout } from '../../src/modules/checkout/pay.service.js';
import { simulatorProcessor } from '../../src/modules/processor/index.js';
import { CARDS, createSession, eventually, pay, payToCompletion, payBody, sql } from '../support/payments.js';
import { addWalletMethod, balanceOf, creditAvailable, WALLET_EMAIL } from '../support/seed.js';
import { workerTaskQueue } from '../support/names.js';
import { TEST_WEBHOOK_ENCRYPTION_KEY, type TestStack } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

/**
 * Live mode fails closed (docs/decisions.md, Live mode fails closed): with NODE_ENV=production, a live key's money moves reach the
 * card simulator only with ALLOW_SIMULATED_LIVE_PAYMENTS=true. Two real stacks in production config on
 * one database, each with its own worker and task queue: `refused` (the setting unset) and `allowed`.
 */
const PRODUCTION = { NODE_ENV: 'production', TEMPORAL_METRICS_ADDRESS: 'off', WORKER_SHUTDOWN_GRACE: '1s' };
const REFUSED = {
  type: 'permission_error',
  message: 'Live payments are not enabled on this server: no acquirer is configured',
  requestId: expect.stringMatching(/^req_/),
};

const refused = useStack(PRODUCTION);
const allowed = useStack({ ...PRODUCTION, ALLOW_SIMULATED_LIVE_PAYMENTS: 'true', TEMPORAL_TASK_QUEUE: `${workerTaskQueue()}-live-allowed` });

const charges = (stack: TestStack, sessionId: string) =>
  sql<{ livemode: boolean; status: string }>(stack, 'select livemode, status from simulator_charges where idempotency_key = ?', [sessionId]);
const sessionStatus = async (stack: TestStack, id: string) =>
  (await sql<{ status: string }>(stack, 'select status from checkout_sessions where id = ?', [id]))[0]?.status;

describe('production without ALLOW_SIMULATED_LIVE_PAYMENTS', () => {
  it('reads the mode from the configuration', () => {
    expect(refused.config).toMatchObject({ env: 'production', livePayments: 'refused' });
    expect(allowed.config).toMatchObject({ env: 'production', livePayments: 'simulated' });
  });

  it('refuses to pay a live session: 403, the session still pending, no charge made or workflow started', async () => {
    const biz = await refused.business();
    const session = await createSession(refused, biz.liveKey);
    expect(session.livemode).toBe(true);
    const res = await pay(refused, session.id, payBody(CARDS.success));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: REFUSED });
    expect(await sessionStatus(refused, session.id)).toBe('pending');
    expect(await charges(refused, session.id)).toEqual([]);
    await expect(refused.temporal.workflow.getHandle(`checkout-${session.id}`).describe()).rejects.toThrow();
    expect(await balanceOf(refused.orm, { businessId: biz.id, livemode: true })).toMatchObject({ available: 0, reserved: 0 });
  });

  it('still pays in test mode', async () => {
    const biz = await refused.business();
    const session = await createSession(refused, biz.testKey);
    await payToCompletion(refused, session.id);
    expect(await charges(refused, session.id)).toEqual([{ livemode: false, status: 'succeeded' }]);
  });

  it('refuses live refunds and withdrawals with 403 before anything is written', async () => {
    const biz = await refused.business();
    const live = { businessId: biz.id, livemode: true };
    await addWalletMethod(refused.orm, biz.id);
    await creditAvailable(refused.orm, live, 10_000);
    const withdrawal = await refused.http.post(
      '/api/withdrawals',
      { amount: 10, destinationType: 'wallet', destinationDetails: { walletEmail: WALLET_EMAIL } },
      { key: biz.liveKey },
    );
    expect(withdrawal.status).toBe(403);
    expect(withdrawal.body.error).toEqual(REFUSED);
    const refund = await refused.http.post('/api/refunds', { transactionId: '00000000-0000-7000-8000-000000000000' }, { key: biz.liveKey });
    expect(refund.status).toBe(403);
    expect(refund.body.error).toEqual(REFUSED);
    expect(await balanceOf(refused.orm, live)).toMatchObject({ available: 10_000, pendingWithdrawal: 0, refundsInFlight: 0 });
    expect(await sql(refused, 'select id from withdrawals where business_id = ?', [biz.id])).toEqual([]);
    // Reads still work for a live key.
    expect((await refused.http.get('/api/balance', { key: biz.liveKey })).status).toBe(200);
  });

  it('the worker declines a live charge that reaches it anyway: the session fails, nothing charged', async () => {
    const biz = await refused.business();
    const session = await createSession(refused, biz.liveKey);
    // As an API configured otherwise would: straight to this stack's worker, past the API's check.
    const deps = { orm: refused.orm, temporal: refused.temporal, taskQueue: refused.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 10_000, livePayments: 'simulated' as const };
    const answer = await payCheckout(deps, await payableSession(deps, session.id), parse(payInput, payBody(CARDS.success)));
    expect(answer.status).toBe('failed');
    expect(await charges(refused, session.id)).toEqual([]);
    const [row] = await sql(refused, 'select failure_code, failure_message from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ failure_code: 'processing_error', failure_message: REFUSED.message });
    expect(await balanceOf(refused.orm, { businessId: biz.id, livemode: true })).toMatchObject({ available: 0, reserved: 0 });
  });
});

describe('production with ALLOW_SIMULATED_LIVE_PAYMENTS=true', () => {
  it('charges a live session through the simulator', async () => {
    const biz = await allowed.business();
    const session = await createSession(allowed, biz.liveKey);
    await payToCompletion(allowed, session.id, payBody(CARDS.success));
    expect(await charges(allowed, session.id)).toEqual([{ livemode: true, status: 'succeeded' }]);
    await eventually('the live balance', async () => (await balanceOf(allowed.orm, { businessId: biz.id, livemode: true })).available > 0);
  });
});

describe('the entry points (npm run api, npm run worker) with NODE_ENV unset', () => {
  /** Runs an entry point until its live-payments line, then stops it; returns its output. */
  async function startUp(entry: string, env: Record<string, string>, ready: string): Promise<string> {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: refused.databaseUrl,
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
        TEMPORAL_TASK_QUEUE: `live-entry-${randomUUID()}`,
        TEMPORAL_METRICS_ADDRESS: 'off',
        ADMIN_PORT: String(await freePort()),
        WEBHOOK_ENCRYPTION_KEY: TEST_WEBHOOK_ENCRYPTION_KEY,
        PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await eventually(`${entry} to log "${ready}"`, () => output.includes(ready) || exitCodeOf(child) !== null, 90_000);
      return output;
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }
  const exitCodeOf = (child: { exitCode: number | null }) => child.exitCode;
  const line = (output: string, msg: string) => output.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith(msg));

  it('the API runs as production and logs that live payments are refused', async () => {
    const tls = { TLS_CERT_FILE: process.env.TEST_TLS_CERT!, TLS_KEY_FILE: process.env.TEST_TLS_KEY!, PORT: String(await freePort()) };
    const output = await startUp('src/main/api.ts', tls, 'live payments:');
    expect(line(output, 'live payments:')).toMatchObject({ level: 40, livePayments: 'refused', msg: expect.stringMatching(/^live payments: refused, no acquirer configured/) });
  }, 120_000);

  it('the worker runs as production and, with the setting, logs that live payments are simulated', async () => {
    const output = await startUp('src/main/worker.ts', { ALLOW_SIMULATED_LIVE_PAYMENTS: 'true' }, 'live payments:');
    expect(line(output, 'live payments:')).toMatchObject({
      level: 40,
      livePayments: 'simulated',
      msg: expect.stringMatching(/^live payments: simulated — ALLOW_SIMULATED_LIVE_PAYMENTS=true/),
    });
  }, 120_000);
});
