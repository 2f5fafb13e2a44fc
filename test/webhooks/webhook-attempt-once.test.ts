import { createWebhookActivities } from '../../activities/webhooks.js';
import { createLogger } from '../../src/log.js';
import { recordEvent } from '../../src/modules/events/event.service.js';
import type { PostOutcome } from '../../src/modules/webhooks/delivery.transport.js';
import { createEventFanout } from '../../src/modules/webhooks/fanout.service.js';
import { TEST_WEBHOOK_ENCRYPTION_KEY } from '../support/stack.js';
import { useBusiness, useStack } from '../support/use-stack.js';

/**
 * Each attempt is claimed once. An attempt runs inside its workflow's task (a local activity), so a worker
 * that dies before the task completes leaves it to run again on the next one; that second run must not
 * POST again. The real attempt activity on the real database, with a transport of the test's own.
 */
const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const answers = new Map<string, { status: number; headers?: Record<string, string>; held?: Promise<void> }>();
const posts: string[] = [];
async function transport(url: string): Promise<PostOutcome> {
  posts.push(url);
  const answer = answers.get(url) ?? { status: 200 };
  await answer.held;
  const ok = answer.status < 300;
  return { ok, statusCode: answer.status, durationMs: 1, responseBody: '', error: ok ? null : `HTTP ${answer.status}`, retryAfter: answer.headers?.['retry-after'] };
}

const activities = () =>
  createWebhookActivities({ orm: stack.orm, webhooks: { encryptionKey: Buffer.from(TEST_WEBHOOK_ENCRYPTION_KEY, 'base64'), allowPrivateUrls: true, transport } });
const sql = <T = any>(query: string, params: unknown[] = []) => stack.orm.em.getConnection().execute<T[]>(query, params);

/** One delivery to a new endpoint; its workflow goes to a queue no worker polls, so only the test attempts it. */
async function delivery(answer: { status: number; headers?: Record<string, string>; held?: Promise<void> }, extra: Record<string, unknown> = {}) {
  const url = `https://receiver-${Math.random().toString(36).slice(2)}.example/hooks`;
  answers.set(url, answer);
  const res = await stack.http.post('/api/webhooks', { url, events: ['checkout.succeeded'], ...extra }, { key: biz.testKey });
  expect(res.status).toBe(201);
  const eventId = await stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, { businessId: biz.id, livemode: false }, 'checkout.succeeded', { sessionId: 'ses-once' }).id);
  await createEventFanout({ orm: stack.orm, temporal: stack.temporal, taskQueue: `nobody-${Math.random()}`, log: createLogger('silent') })({ eventId });
  const endpointId = res.body.data.endpoint.id as string;
  const [row] = await sql<{ id: string }>('select id from webhook_deliveries where event_id = ? and endpoint_id = ?', [eventId, endpointId]);
  return { id: row.id, url, endpointId };
}

const attempt = (deliveryId: string, attemptNumber: number, turnTaken = false) =>
  activities().sendWebhookAttempt({ deliveryId, attemptNumber, nextDelayMs: 60_000, now: Date.now(), turnTaken });
const sent = (url: string) => posts.filter((p) => p === url).length;

describe('an attempt run a second time', () => {
  it('after a success: sends nothing and answers succeeded', async () => {
    const d = await delivery({ status: 200 });
    expect(await attempt(d.id, 1)).toEqual({ outcome: 'succeeded' });
    expect(await attempt(d.id, 1)).toEqual({ outcome: 'succeeded' });
    expect(sent(d.url)).toBe(1);
    expect(await sql('select attempt_number, succeeded from webhook_attempts where delivery_id = ?', [d.id])).toEqual([{ attempt_number: 1, succeeded: true }]);
  });

  it('after a failure: sends nothing, and the next attempt keeps the time the failure set', async () => {
    const d = await delivery({ status: 500 });
    expect(await attempt(d.id, 1)).toEqual({ outcome: 'failed', retryAfterMs: null });
    const again = await attempt(d.id, 1);
    expect(again.outcome).toBe('failed');
    // What is left of the minute the failure set (not a new minute from now, not 0).
    const left = again.outcome === 'failed' ? again.retryAfterMs! : 0;
    expect(left).toBeGreaterThan(50_000);
    expect(left).toBeLessThanOrEqual(60_000);
    expect(sent(d.url)).toBe(1);
    const [row] = await sql('select status, attempt_count from webhook_deliveries where id = ?', [d.id]);
    expect(row).toEqual({ status: 'pending', attempt_count: 1 });
    // The next attempt is a new claim, and sends.
    answers.set(d.url, { status: 200 });
    expect(await attempt(d.id, 2)).toEqual({ outcome: 'succeeded' });
    expect(sent(d.url)).toBe(2);
  });

  it("after a Retry-After: keeps the receiver's wait, and takes no turn of a throttled endpoint", async () => {
    const d = await delivery({ status: 429, headers: { 'retry-after': '120' } }, { rateLimitPerSecond: 5 });
    expect(await attempt(d.id, 1)).toEqual({ outcome: 'failed', retryAfterMs: 120_000 });
    const [before] = await sql('select next_attempt_not_before from webhook_endpoints where id = ?', [d.endpointId]);
    const again = await attempt(d.id, 1);
    expect(again.outcome === 'failed' && again.retryAfterMs).toBeGreaterThan(110_000);
    expect(sent(d.url)).toBe(1);
    const [after] = await sql('select next_attempt_not_before from webhook_endpoints where id = ?', [d.endpointId]);
    expect(after).toEqual(before);
  });

  it('while the first is still under way: waits for it (up to 30 s from its claim), then reads what it came to', async () => {
    let answer!: () => void;
    const d = await delivery({ status: 200, held: new Promise((resolve) => (answer = resolve)) });
    const first = attempt(d.id, 1);
    while (sent(d.url) === 0) await new Promise((r) => setTimeout(r, 20)); // the POST left, its answer held
    const meanwhile = await attempt(d.id, 1);
    expect(meanwhile.outcome).toBe('wait');
    const waitMs = meanwhile.outcome === 'wait' ? meanwhile.waitMs : 0;
    expect(waitMs).toBeGreaterThan(25_000);
    expect(waitMs).toBeLessThanOrEqual(30_000);
    answer();
    expect(await first).toEqual({ outcome: 'succeeded' });
    // Woken after its wait (the workflow's timer), it finds the outcome and sends nothing.
    expect(await attempt(d.id, 1, true)).toEqual({ outcome: 'succeeded' });
    expect(sent(d.url)).toBe(1);
  });

  it('when the first died mid-request (still delivering 30 s after its claim): counts as failed, and the next attempt sends', async () => {
    const d = await delivery({ status: 200 });
    // What a worker killed during the POST leaves: claimed, never recorded. Its claim is aged rather than waited for.
    await sql(`update webhook_deliveries set status = 'delivering', attempt_count = 1, updated_at = now() - interval '31 seconds' where id = ?`, [d.id]);
    expect(await attempt(d.id, 1)).toEqual({ outcome: 'failed', retryAfterMs: null });
    expect(sent(d.url)).toBe(0);
    expect(await attempt(d.id, 2)).toEqual({ outcome: 'succeeded' });
    expect(sent(d.url)).toBe(1);
  });
});
