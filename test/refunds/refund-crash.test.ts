import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { verifyLedger } from '../../src/modules/ledger/ledger-verify.service.js';
import { eventually, paidSession, sql } from '../support/payments.js';
import { creditAvailable, testMode } from '../support/seed.js';
import { useStack } from '../support/use-stack.js';

/**
 * The API runs here; the worker runs in a separate process that the test SIGKILLs while a refund is
 * `processing` (its processor call in flight), then starts again.
 */
const children: ChildProcess[] = [];
// Declared first, so the children die before the stack stops (hooks run in the order declared).
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
const stack = useStack({}, { worker: false });

/** Starts a worker process and resolves once it polls; `lines` collects what it prints. */
async function startWorkerProcess(env: Record<string, string> = {}): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/support/crash-worker.ts')], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: stack.databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
      DATA_DIR: path.join(process.env.TEST_ROOT!, 'crash-worker'),
      LOG_LEVEL: 'silent',
      TEMPORAL_SDK_LOG_LEVEL: 'ERROR',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  child.stdout!.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  child.stderr!.on('data', (chunk) => process.stderr.write(`[worker ${child.pid}] ${chunk}`));
  const ready = await eventually(async () => lines.includes('worker-ready') || child.exitCode !== null, 60_000);
  if (!ready || child.exitCode !== null) throw new Error(`worker process did not start (exit ${child.exitCode})`);
  return { child, lines };
}

it('completes a refund exactly once after its worker is killed mid-refund and another starts', async () => {
  const first = await startWorkerProcess({ CRASH_WORKER_HOLD_REFUNDS: '1' });
  const biz = await stack.business();
  const session = await paidSession(stack, biz);
  await creditAvailable(stack.orm, testMode(biz.id), 1_000);
  const created = await stack.http.post('/api/refunds', { checkoutSessionId: session.id }, { key: biz.testKey });
  expect(created.status).toBe(201);
  const refundId = created.body.data.id as string;

  // The processor call is in flight: the refund is `processing` in the database.
  expect(await eventually(async () => first.lines.includes(`refund-started ${refundId}`), 30_000)).toBe(true);
  const readStatus = async () => (await stack.http.get(`/api/refunds/${refundId}`, { key: biz.testKey })).body.data.status;
  expect(await readStatus()).toBe('processing');

  const exited = new Promise((resolve) => first.child.once('exit', (_code, signal) => resolve(signal)));
  first.child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  await new Promise((r) => setTimeout(r, 500));
  expect(await readStatus()).toBe('processing');

  await startWorkerProcess();
  // The dead worker's activity is retried once its heartbeat times out (10 s).
  expect(await eventually(async () => (await readStatus()) === 'completed', 60_000)).toBe(true);

  const postings = await sql(stack, `select kind from ledger_transactions where reference_id = ? order by created_at`, [refundId]);
  expect(postings.map((p) => p.kind)).toEqual(['refund.created', 'refund.completed']);
  const events = await sql(stack, `select type from events where payload->>'refundId' = ? order by created_at`, [refundId]);
  expect(events.map((e) => e.type)).toEqual(['refund.created', 'refund.completed']);
  const handle = stack.temporal.workflow.getHandle(`refund-${refundId}`);
  expect(await handle.result()).toBe('completed');
  expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
}, 120_000);
