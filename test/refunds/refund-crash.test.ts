import { verifyLedger } from '../../src/modules/ledger/index.js';
import { eventually, paidSession, sql } from '../support/payments.js';
import { creditAvailable, testMode } from '../support/seed.js';
import type { ServiceProcess } from '../support/processes.js';
import { useStack } from '../support/use-stack.js';

/**
 * The API runs here; the worker runs in a separate process (the stack kills it when it stops) that the
 * test SIGKILLs while a refund is `processing` (its processor call in flight), then starts again.
 */
const stack = useStack({}, { worker: false });

/** A worker process whose processor's refund call, with CRASH_WORKER_HOLD_REFUNDS=1, never answers. */
const startWorkerProcess = (env: Record<string, string> = {}) => stack.processes.worker({ name: 'crash-worker', entry: 'test/support/crash-worker.ts', env });
/** The lines a process printed. */
const lines = (proc: ServiceProcess) => proc.output().split('\n');

it('completes a refund exactly once after its worker is killed mid-refund and another starts', async () => {
  const first = await startWorkerProcess({ CRASH_WORKER_HOLD_REFUNDS: '1' });
  const biz = await stack.business();
  const session = await paidSession(stack, biz);
  await creditAvailable(stack.orm, testMode(biz.id), 1_000);
  const created = await stack.http.post('/api/refunds', { checkoutSessionId: session.id }, { key: biz.testKey });
  expect(created.status).toBe(201);
  const refundId = created.body.data.id as string;

  // The processor call is in flight: the refund is `processing` in the database.
  expect(await eventually(async () => lines(first).includes(`refund-started ${refundId}`), 30_000)).toBe(true);
  const readStatus = async () => (await stack.http.get(`/api/refunds/${refundId}`, { key: biz.testKey })).body.data.status;
  expect(await readStatus()).toBe('processing');

  await first.kill('SIGKILL');
  expect((await first.exited).signal).toBe('SIGKILL');
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
}, 420_000); // two worker processes, each bundling its workflows: over a minute apiece on a busy machine
