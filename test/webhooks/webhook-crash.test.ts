import { jest } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { webhookDeliveryWorkflowId } from '../../contracts/workflow-ids.js';
import { createLogger } from '../../src/log.js';
import { outboxFor, startWorker } from '../../src/main/runtime.js';
import { recordEvent } from '../../src/modules/events/index.js';
import { createDeliveryAttempts, createFirstAttempts, webhookEncryptionKey } from '../../src/modules/webhooks/index.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver.js';

// Three tests start a worker of their own in this process, each bundling its workflows: on a busy machine that
// alone can take most of jest's default minute.
jest.setTimeout(180_000);

/**
 * "Never lost when a process dies between the commit and the fan-out; never delivered twice except by a
 * retry." The stack runs without a worker, so nothing dispatches the outbox until the test says so. A
 * worker's fan-out sends each delivery's first attempt itself, beside its workflow's start; each attempt
 * is claimed once, and the workflow owns the schedule from there.
 */
let receiver: Receiver;
let stopWorker: (() => Promise<void>) | undefined;
afterAll(async () => stopWorker?.()); // declared first: afterAll hooks run in declaration order, the stack's next
// The spec's schedule a second apart after the first attempt (tests only), so a retry comes in the test's time.
const stack = useStack(async () => ({ WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile, WEBHOOK_RETRY_DELAYS: '0,1s,1s' }), { worker: false });
const biz = useBusiness(stack);
afterAll(async () => receiver?.close());

const sql = (query: string, params: unknown[] = []) => stack.orm.em.getConnection().execute(query, params);

/**
 * A real OS process that takes the event's outbox row and is SIGKILLed mid-fan-out: by itself once the
 * deliveries are committed, or (`first-attempt`) once `killWhen` resolves (the first attempt's POST has arrived).
 */
async function runWorkerThatDies(outboxId: string, crashAt: 'deliveries' | 'first-attempt' = 'deliveries', killWhen?: () => Promise<unknown>) {
  const proc = stack.processes.run('fanout-then-die', 'test/support/fanout-then-die.ts', { CRASH_OUTBOX_ID: outboxId, CRASH_AT: crashAt });
  void killWhen?.().then(() => proc.kill('SIGKILL'));
  return { ...(await proc.exited), output: proc.output() };
}

/** An event (of a type only one endpoint of the business takes), committed as an activity commits one (no fast path), and its outbox row. */
async function commitEvent(type: 'refund.completed' | 'refund.failed', payload: Record<string, unknown>) {
  const eventId = await stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, { businessId: biz.id, livemode: false }, type, payload).id);
  const [outbox] = await sql(`select id from outbox where message->>'eventId' = ?`, [eventId]);
  return { eventId, outboxId: String(outbox.id) };
}

/** A worker's first attempts, with the stack's own settings. */
const firstAttempts = () =>
  createFirstAttempts(
    createDeliveryAttempts({ orm: stack.orm, webhooks: { encryptionKey: webhookEncryptionKey(stack.config), caFile: stack.config.webhooks.caFile, allowPrivateUrls: true } }),
    createLogger('silent'),
    stack.config.webhooks.retryDelaysMs,
  );

describe('fan-out across a crash', () => {
  it('fans out on the fast path right after the commit, with no relay running', async () => {
    const hook = await stack.http.post('/api/webhooks', { url: receiver.url(), events: ['refund.created'] }, { key: biz.testKey });
    const { outboxId, eventId } = await stack.orm.em.fork().transactional(async (tx) => {
      const event = recordEvent(tx, { businessId: biz.id, livemode: false }, 'refund.created', { refundId: 'ref_fast' });
      await tx.flush();
      const [row] = await tx.execute(`select id from outbox where message->>'eventId' = ?`, [event.id]);
      return { outboxId: row.id as string, eventId: event.id };
    });
    await outboxFor(stack.orm, stack.temporal, stack.config, createLogger('silent')).dispatch([outboxId]);
    const [row] = await sql('select dispatched_at from outbox where id = ?', [outboxId]);
    expect(row.dispatched_at).not.toBeNull();
    const deliveries = await sql('select endpoint_id from webhook_deliveries where event_id = ?', [eventId]);
    expect(deliveries).toEqual([{ endpoint_id: hook.body.data.endpoint.id }]);
  });

  it("a worker's fan-out sends the first attempt itself, before the delivery's workflow runs; the workflow then sends nothing", async () => {
    const hook = await stack.http.post('/api/webhooks', { url: receiver.url(), events: ['refund.completed'] }, { key: biz.testKey });
    const { url } = hook.body.data.endpoint;
    const { eventId, outboxId } = await commitEvent('refund.completed', { refundId: 'ref_first' });
    // A queue of its own, so that no worker runs the workflow until this test starts one.
    const config = { ...stack.config, temporal: { ...stack.config.temporal, taskQueue: `${stack.config.temporal.taskQueue}-first` } };
    const attempts = firstAttempts();
    await outboxFor(stack.orm, stack.temporal, config, createLogger('silent'), attempts).dispatch([outboxId]);
    await attempts.settled();
    expect(receiver.at(url)).toHaveLength(1);
    const [delivery] = await sql('select id, status from webhook_deliveries where event_id = ?', [eventId]);
    expect(delivery.status).toBe('succeeded');
    expect(await sql('select attempt_number, succeeded from webhook_attempts where delivery_id = ?', [delivery.id])).toEqual([{ attempt_number: 1, succeeded: true }]);
    const handle = stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id));
    expect((await handle.describe()).status.name).toBe('RUNNING'); // started, durable, not yet run

    const worker = await startWorker({ config, orm: stack.orm, temporal: stack.temporal, log: createLogger('silent') });
    try {
      expect(await handle.result()).toBe('succeeded');
    } finally {
      await worker.stop();
    }
    expect(receiver.at(url)).toHaveLength(1);
    expect(await sql('select count(*)::int as n from webhook_attempts where delivery_id = ?', [delivery.id])).toEqual([{ n: 1 }]);
  });

  it('delivers on the scheduled retry after the worker dies mid-first-attempt, before any workflow started', async () => {
    // The first POST is held unanswered: the worker dies while it is under way.
    const hook = await stack.http.post('/api/webhooks', { url: receiver.url([{ status: 200, holdMs: 60_000 }, { status: 200 }]), events: ['refund.failed'] }, { key: biz.testKey });
    const { url } = hook.body.data.endpoint;
    const { eventId, outboxId } = await commitEvent('refund.failed', { refundId: 'ref_crash_first' });

    const died = await runWorkerThatDies(outboxId, 'first-attempt', () => eventually(() => receiver.at(url).length === 1));
    expect(died.signal).toBe('SIGKILL');
    const [delivery] = await sql('select id, status, attempt_count from webhook_deliveries where event_id = ?', [eventId]);
    expect(delivery).toMatchObject({ status: 'delivering', attempt_count: 1 });
    await expect(stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await sql('select dispatched_at from outbox where id = ?', [outboxId]))[0].dispatched_at).toBeNull();

    // The dead process's claims lapse (the outbox row's 30 s, the attempt's 30 s), moved into the past rather than slept.
    await sql(`update outbox set claimed_until = now() - interval '1 second' where id = ?`, [outboxId]);
    await sql(`update webhook_deliveries set updated_at = now() - interval '31 seconds' where id = ?`, [delivery.id]);
    const worker = await startWorker({ config: stack.config, orm: stack.orm, temporal: stack.temporal, log: createLogger('silent') });
    try {
      // The relay repeats the fan-out: the workflow starts, counts the lost attempt as failed, and sends the second.
      await eventually(async () => (await sql('select status from webhook_deliveries where id = ?', [delivery.id]))[0].status === 'succeeded');
      expect(await stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id)).result()).toBe('succeeded');
    } finally {
      await worker.stop();
    }
    const posts = receiver.at(url);
    expect(posts.map((p) => p.headers['x-webhook-id'])).toEqual([eventId, eventId]);
    expect(await sql('select attempt_number, succeeded from webhook_attempts where delivery_id = ?', [delivery.id])).toEqual([{ attempt_number: 2, succeeded: true }]);
    expect(await sql('select id from webhook_deliveries where event_id = ?', [eventId])).toEqual([{ id: delivery.id }]);
    expect((await sql('select dispatched_at from outbox where id = ?', [outboxId]))[0].dispatched_at).not.toBeNull();
  });

  it('delivers exactly once after the worker is killed between the commit and the fan-out', async () => {
    const hook = await stack.http.post('/api/webhooks', { url: receiver.url(), events: ['checkout.succeeded'] }, { key: biz.testKey });
    const { url } = hook.body.data.endpoint;

    // 1. The producer commits the event and its outbox row; its process "dies" before the fast path runs
    //    (no afterCommit, no relay anywhere).
    const eventId = await stack.orm.em
      .fork()
      .transactional(async (tx) => recordEvent(tx, { businessId: biz.id, livemode: false }, 'checkout.succeeded', { sessionId: 'crash' }).id);
    const [outbox] = await sql(`select id from outbox where message->>'eventId' = ?`, [eventId]);

    // 2. A worker process claims the row, commits the deliveries, and is killed before starting workflows.
    const died = await runWorkerThatDies(String(outbox.id));
    expect(died.output).toContain('deliveries committed; dying');
    expect(died.signal).toBe('SIGKILL');
    const afterCrash = await sql('select id, status from webhook_deliveries where event_id = ?', [eventId]);
    expect(afterCrash).toEqual([{ id: expect.stringMatching(/^whd_/), status: 'pending' }]);
    const [row] = await sql('select dispatched_at, claimed_until from outbox where id = ?', [outbox.id]);
    expect(row.dispatched_at).toBeNull();
    expect(row.claimed_until).not.toBeNull(); // the dead process's claim
    expect(receiver.at(url)).toHaveLength(0);

    // 3. The dead claim lapses (30 s in production; the test moves it into the past rather than sleep).
    await sql('update outbox set claimed_until = now() - interval \'1 second\' where id = ?', [outbox.id]);

    // 4. The worker restarts; its relay repeats the fan-out.
    const worker = await startWorker({ config: stack.config, orm: stack.orm, temporal: stack.temporal, log: createLogger('silent') });
    stopWorker = worker.stop;
    await eventually(async () => (await sql('select status from webhook_deliveries where event_id = ?', [eventId]))[0]?.status === 'succeeded');
    const deliveries = await sql('select id from webhook_deliveries where event_id = ?', [eventId]);
    expect(deliveries).toEqual([{ id: afterCrash[0].id }]); // the same delivery, none created twice
    expect(receiver.at(url)).toHaveLength(1);
    expect(JSON.parse(receiver.at(url)[0].rawBody.toString()).id).toBe(eventId);
    await eventually(async () => (await sql('select dispatched_at from outbox where id = ?', [outbox.id]))[0].dispatched_at !== null);

    // 5. The fan-out runs once more for the same event (a re-dispatch after another crash): nothing new.
    const handle = stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(afterCrash[0].id));
    const { runId } = await handle.describe();
    await sql('update outbox set dispatched_at = null, claimed_until = null where id = ?', [outbox.id]);
    await eventually(async () => (await sql('select dispatched_at from outbox where id = ?', [outbox.id]))[0].dispatched_at !== null);
    await new Promise((r) => setTimeout(r, 1500)); // time for a second POST, were one (wrongly) under way
    expect(await sql('select id from webhook_deliveries where event_id = ?', [eventId])).toHaveLength(1);
    expect((await handle.describe()).runId).toBe(runId); // REJECT_DUPLICATE: no second run
    expect(receiver.at(url)).toHaveLength(1);
    const [{ attempts }] = await sql('select count(*)::int as attempts from webhook_attempts where delivery_id = ?', [afterCrash[0].id]);
    expect(attempts).toBe(1);
  });
});
