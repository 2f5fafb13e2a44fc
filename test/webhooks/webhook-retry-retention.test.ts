/**
 * A manual retry by delivery id racing the retention run: retention deletes an event with its deliveries
 * and attempts in one transaction, under the event's row lock. The retry reads the delivery, then locks
 * its event; when retention commits in between, the event is gone and the retry is 404 `not_found`, not
 * a 500 from the new delivery's foreign key. The race is made exact, not waited for: the test takes the
 * event's lock first (as retention's statement does), lets the retry read the delivery and queue behind
 * the lock, then deletes what retention deletes and commits.
 */
import { eventually, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

/** An event 31 days old (past retention) with one failed delivery to a new endpoint. */
async function oldFailedDelivery(): Promise<{ eventId: string; deliveryId: string }> {
  const created = await stack.http.post('/api/webhooks', { url: 'https://receiver.example/hook', events: ['checkout.succeeded'] }, { key: biz.testKey });
  expect(created.status).toBe(201);
  const suffix = `${Date.now().toString(16)}${Math.random().toString(16).slice(2)}`.padEnd(32, '0').slice(0, 32);
  const [eventId, deliveryId] = [`evt_${suffix}`, `whd_${suffix}`];
  await sql(stack, `insert into events (id, business_id, livemode, type, payload, created_at) values (?, ?, false, 'checkout.succeeded', '{}', now() - interval '31 days')`, [eventId, biz.id]);
  await sql(
    stack,
    `insert into webhook_deliveries (id, event_id, endpoint_id, business_id, livemode, generation, status, body, attempt_count, created_at, updated_at)
     values (?, ?, ?, ?, false, 0, 'failed', '{}', 7, now() - interval '31 days', now() - interval '31 days')`,
    [deliveryId, eventId, created.body.data.endpoint.id, biz.id],
  );
  return { eventId, deliveryId };
}

describe('POST /api/webhooks/retry/:id racing retention', () => {
  it('answers 404 not_found when retention deleted the event between reading the delivery and locking the event', async () => {
    const { eventId, deliveryId } = await oldFailedDelivery();
    let retry: Promise<{ status: number; body: any }> | undefined;
    await stack.orm.em.fork().transactional(async (tx) => {
      const connection = tx.getConnection();
      const run = (query: string) => connection.execute(query, [eventId], 'all', tx.getTransactionContext());
      await run('select id from events where id = ? for update');
      retry = stack.http.post(`/api/webhooks/retry/${deliveryId}`, undefined, { key: biz.testKey });
      // The retry has read the delivery and waits for the event's lock.
      await eventually('the retry to wait for the event lock', async () =>
        (await sql(stack, `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%from events where id%for update%'`)).length > 0,
      );
      // What the retention rule deletes, in its order: attempts, deliveries, the event.
      await run('delete from webhook_attempts where delivery_id in (select id from webhook_deliveries where event_id = ?)');
      await run('delete from webhook_deliveries where event_id = ?');
      await run('delete from events where id = ?');
    });
    const res = await retry!;
    expect([res.status, res.body.error]).toEqual([404, expect.objectContaining({ type: 'not_found', message: 'Event or delivery not found' })]);
    expect(await sql(stack, 'select id from webhook_deliveries where event_id = ?', [eventId])).toEqual([]);
  });
});
