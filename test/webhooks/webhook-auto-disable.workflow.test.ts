import { createWebhookActivities } from '../../activities/webhooks.js';
import { createLogger } from '../../src/log.js';
import { recordEvent } from '../../src/modules/events/index.js';

import { type PostOutcome, createEventFanout } from '../../src/modules/webhooks/index.js';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../contracts/webhooks.js';
import { TEST_WEBHOOK_ENCRYPTION_KEY } from '../support/stack.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually } from '../support/webhook-receiver.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';
import { webhookDeliveryWorkflowId } from '../../contracts/workflow-ids.js';

/**
 * Automatic disabling over days, on the time-skipping server: the real delivery workflow and activities
 * against the real database, with a transport of the test's own (500 or 200 per URL) as the receivers.
 * The workflow's clock, skipped days ahead, is the one that measures the failure streak.
 */
const DAY = 24 * 3600_000;
const env = useTimeSkippingEnv();
const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);
const answers = new Map<string, number>();
const received: { url: string; body: any }[] = [];
const taskQueue = `auto-disable-${Math.random()}`;

async function transport(url: string, _headers: Record<string, string>, body: string): Promise<PostOutcome> {
  received.push({ url, body: JSON.parse(body) });
  const status = answers.get(url) ?? 200;
  return { ok: status < 300, statusCode: status, durationMs: 1, responseBody: '', error: status < 300 ? null : `HTTP ${status}` };
}

const fanOut = (eventId: string) =>
  createEventFanout({ orm: stack.orm, temporal: env().client, taskQueue, log: createLogger('silent') })({ eventId });

async function endpoint(events: string[], status: number) {
  const url = `https://receiver-${Math.random().toString(36).slice(2)}.example/hooks`;
  answers.set(url, status);
  const res = await stack.http.post('/api/webhooks', { url, events }, { key: biz.testKey });
  expect(res.status).toBe(201);
  return { id: res.body.data.endpoint.id as string, url };
}

/**
 * Fans an event out (a checkout.succeeded made now, unless one is named) and drives its one delivery to
 * its end. Time is skipped only while no activity runs: the test server would otherwise skip past a
 * running activity's timeout. So each scheduled delay is slept through on the skipped clock (5 s more,
 * for the workflow to set its timer), and the attempt it wakes is awaited in real time.
 */
async function deliver(eventId?: string) {
  const id = eventId ?? (await stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, { businessId: biz.id, livemode: false }, 'checkout.succeeded', { sessionId: 'ses-1' }).id));
  await fanOut(id);
  const [delivery] = await sql<{ id: string; endpoint_id: string }>('select id, endpoint_id from webhook_deliveries where event_id = ?', [id]);
  for (let i = 0; i < WEBHOOK_RETRY_DELAYS_MS.length; i++) {
    if (WEBHOOK_RETRY_DELAYS_MS[i] > 0) await env().sleep(WEBHOOK_RETRY_DELAYS_MS[i] + 5_000);
    const [row] = await eventually(async () => {
      const rows = await sql<{ status: string; attempt_count: number }>('select status, attempt_count from webhook_deliveries where id = ?', [delivery.id]);
      return rows[0].attempt_count > i && rows[0].status !== 'delivering' && rows;
    });
    if (row.status !== 'pending') break;
  }
  // Awaited in real time too (`result()` would unlock skipping while the last activity runs).
  const handle = env().client.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id));
  await eventually(async () => (await handle.describe()).status.name === 'COMPLETED');
  const [row] = await sql<{ status: string; attempt_count: number }>('select status, attempt_count from webhook_deliveries where id = ?', [delivery.id]);
  return { eventId: id, endpointId: delivery.endpoint_id, status: row.status, attempts: row.attempt_count };
}

const sql = <T>(query: string, params: unknown[]) => stack.orm.em.getConnection().execute<T[]>(query, params);
const read = async (id: string) => (await stack.http.get(`/api/webhooks/${id}`, { key: biz.testKey })).body.data;

async function withWorker(fn: () => Promise<void>) {
  const activities = createWebhookActivities({
    orm: stack.orm,
    webhooks: { encryptionKey: Buffer.from(TEST_WEBHOOK_ENCRYPTION_KEY, 'base64'), allowPrivateUrls: true, transport },
  });
  const worker = await testWorker(env(), taskQueue, activities);
  await worker.runUntil(fn());
}

describe('automatic disabling of a failing endpoint (5 days, time skipped)', () => {
  it('disables an endpoint whose attempts have all failed for 5 days, tells the other subscribed endpoints, and re-enabling clears it', async () => {
    const failing = await endpoint(['checkout.succeeded'], 500);
    const watcher = await endpoint(['webhook_endpoint.disabled'], 200);
    const bystander = await endpoint(['refund.completed'], 200);
    await withWorker(async () => {
      const started = await env().currentTimeMs();
      // Day 0 to 1.4: the spec's 7 attempts, all failed. One day and a half is no reason to disable.
      expect(await deliver()).toMatchObject({ endpointId: failing.id, status: 'failed', attempts: 7 });
      expect(await read(failing.id)).toMatchObject({ enabled: true, disabledReason: null });

      // Day 4: another event; its 7th attempt, at day 5.4, comes 5 days after the streak's first failure.
      await env().sleep(started + 4 * DAY - (await env().currentTimeMs()));
      expect(await deliver()).toMatchObject({ endpointId: failing.id, status: 'failed', attempts: 7 });
      const now = await env().currentTimeMs();
      const disabled = await read(failing.id);
      expect(disabled).toMatchObject({ enabled: false, isActive: false, disabledReason: 'failing' });
      const disabledAt = Date.parse(disabled.disabledAt);
      expect(disabledAt - started).toBeGreaterThanOrEqual(5 * DAY);
      expect(disabledAt).toBeLessThanOrEqual(now);

      // The event, fanned out like any other: to the watcher only (the disabled one and a bystander not).
      const [event] = await sql<{ id: string; payload: unknown }>("select id, payload from events where business_id = ? and type = 'webhook_endpoint.disabled'", [biz.id]);
      expect(event.payload).toEqual({ endpointId: failing.id, url: failing.url, reason: 'failing', disabledAt: disabled.disabledAt });
      expect(await deliver(event.id)).toMatchObject({ endpointId: watcher.id, status: 'succeeded', attempts: 1 });
      expect(await sql('select endpoint_id from webhook_deliveries where event_id = ?', [event.id])).toEqual([{ endpoint_id: watcher.id }]);
      const told = received.filter((r) => r.url === watcher.url);
      expect(told).toHaveLength(1);
      expect(told[0].body).toMatchObject({ type: 'webhook_endpoint.disabled', payload: event.payload });
      expect(received.filter((r) => r.url === bystander.url)).toEqual([]);

      const enabled = await stack.http.patch(`/api/webhooks/${failing.id}`, { isActive: true }, { key: biz.testKey });
      expect(enabled.body.data).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
      for (const id of [failing.id, bystander.id]) await stack.http.delete(`/api/webhooks/${id}`, { key: biz.testKey });
    });
  }, 300_000);

  it('counts from the first failure after the last success: a success restarts the streak', async () => {
    const flaky = await endpoint(['checkout.succeeded'], 500);
    await withWorker(async () => {
      const started = await env().currentTimeMs();
      expect(await deliver()).toMatchObject({ status: 'failed', attempts: 7 });
      // Day 3: one success ends the streak.
      await env().sleep(started + 3 * DAY - (await env().currentTimeMs()));
      answers.set(flaky.url, 200);
      expect(await deliver()).toMatchObject({ status: 'succeeded', attempts: 1 });
      answers.set(flaky.url, 500);
      // Day 4 to 5.4: failing again, but only for 1.4 days of a new streak.
      await env().sleep(started + 4 * DAY - (await env().currentTimeMs()));
      expect(await deliver()).toMatchObject({ endpointId: flaky.id, status: 'failed', attempts: 7 });
      expect(await read(flaky.id)).toMatchObject({ enabled: true, disabledReason: null });
    });
  }, 300_000);
});
