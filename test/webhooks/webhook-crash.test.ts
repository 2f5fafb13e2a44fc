import { createLogger } from '../../src/log.js';
import { outboxFor, startWorker } from '../../src/main/runtime.js';
import { recordEvent } from '../../src/modules/events/event.service.js';

import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { webhookDeliveryWorkflowId } from '../../contracts/workflow-ids.js';

/**
 * "Never lost when a process dies between the commit and the fan-out; never delivered twice except by a
 * retry." The stack runs without a worker, so nothing dispatches the outbox until the test says so.
 */
let receiver: Receiver;
let stopWorker: (() => Promise<void>) | undefined;
afterAll(async () => stopWorker?.()); // declared first: afterAll hooks run in declaration order, the stack's next
const stack = useStack(async () => ({ WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile }), { worker: false });
const biz = useBusiness(stack);
afterAll(async () => receiver?.close());

const sql = (query: string, params: unknown[] = []) => stack.orm.em.getConnection().execute(query, params);

/** A real OS process that takes the event's outbox row and is SIGKILLed mid-fan-out. */
async function runWorkerThatDies(outboxId: string): Promise<{ signal: NodeJS.Signals | null; code: number | null; output: string }> {
  const proc = stack.processes.run('fanout-then-die', 'test/support/fanout-then-die.ts', { CRASH_OUTBOX_ID: outboxId });
  return { ...(await proc.exited), output: proc.output() };
}

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
