import { createWebhookActivities, type WebhookActivityDeps } from '../../activities/webhooks.js';
import { createLogger } from '../../src/log.js';
import { recordEvent } from '../../src/modules/events/index.js';
import { createDeliveryAttempts, type PostOutcome, createEventFanout, createFirstAttempts } from '../../src/modules/webhooks/index.js';
import { TEST_WEBHOOK_ENCRYPTION_KEY } from '../support/stack.js';
import { useBusiness, useStack } from '../support/use-stack.js';

/**
 * Each attempt is claimed once. An attempt runs inside its workflow's task (a local activity), so a worker
 * that dies before the task completes leaves it to run again on the next one; and a worker's fan-out sends
 * a delivery's first attempt beside the workflow's own. The second never POSTs again: it reads what the
 * first came to. The real attempt activity on the real database, with a transport of the test's own.
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

const deps = () => ({ orm: stack.orm, webhooks: { encryptionKey: Buffer.from(TEST_WEBHOOK_ENCRYPTION_KEY, 'base64'), allowPrivateUrls: true, transport } });
const activities = (extra: Partial<WebhookActivityDeps> = {}) => createWebhookActivities({ ...deps(), ...extra });
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

  it('while the first is under way in another process: reads it again after as long as it has been under way, then its outcome', async () => {
    let answer!: () => void;
    const d = await delivery({ status: 200, held: new Promise((resolve) => (answer = resolve)) });
    const first = attempt(d.id, 1);
    while (sent(d.url) === 0) await new Promise((r) => setTimeout(r, 20)); // the POST left, its answer held
    const soon = await attempt(d.id, 1);
    expect(soon.outcome === 'wait' && soon.waitMs).toBeGreaterThanOrEqual(250);
    expect(soon.outcome === 'wait' && soon.waitMs).toBeLessThan(5_000);
    // Under way for 10 s (its claim aged rather than waited for): read again in 10 s, within its 30 s limit.
    await sql(`update webhook_deliveries set updated_at = now() - interval '10 seconds' where id = ?`, [d.id]);
    const later = await attempt(d.id, 1, true);
    expect(later.outcome === 'wait' && later.waitMs).toBeGreaterThanOrEqual(10_000);
    expect(later.outcome === 'wait' && later.waitMs).toBeLessThan(11_000);
    answer();
    expect(await first).toEqual({ outcome: 'succeeded' });
    // Woken after its wait (the workflow's timer), it finds the outcome and sends nothing.
    expect(await attempt(d.id, 1, true)).toEqual({ outcome: 'succeeded' });
    expect(sent(d.url)).toBe(1);
  });

  it("while the worker's fan-out is sending it in the same process: waits for that attempt, then reads its outcome", async () => {
    let answer!: () => void;
    const d = await delivery({ status: 500, held: new Promise((resolve) => (answer = resolve)) });
    const firstAttempts = createFirstAttempts(createDeliveryAttempts(deps()), createLogger('silent'));
    // `send` settles once the claim is answered and the POST is on its way (the fan-out then starts the workflows).
    await firstAttempts.send([d.id]);
    expect(sent(d.url)).toBe(1);
    let settled = false;
    const own = activities({ firstAttempts })
      .sendWebhookAttempt({ deliveryId: d.id, attemptNumber: 1, nextDelayMs: 60_000, now: Date.now(), turnTaken: false })
      .finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    answer();
    const result = await own;
    // The fan-out's attempt failed: the next attempt keeps the minute it set, and nothing was sent twice.
    expect(result.outcome === 'failed' && result.retryAfterMs).toBeGreaterThan(50_000);
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

describe("the fan-out's first attempts, claimed in one statement", () => {
  it('sends each delivery whose endpoint has no turn to take, once; a throttled or disabled endpoint is left to its workflow', async () => {
    const plain = await delivery({ status: 200 });
    const other = await delivery({ status: 500 });
    const throttled = await delivery({ status: 200 }, { rateLimitPerSecond: 5 });
    const disabled = await delivery({ status: 200 });
    await sql('update webhook_endpoints set enabled = false where id = ?', [disabled.endpointId]);
    const attempts = createDeliveryAttempts(deps());
    const ids = [plain.id, other.id, throttled.id, disabled.id, 'whd_unknown'];
    const outcomes = await Promise.all([...attempts.firsts(ids, 60_000).attempts.values()]);
    expect(outcomes).toEqual([{ outcome: 'succeeded' }, { outcome: 'failed', retryAfterMs: null }, undefined, undefined, undefined]);
    expect([plain, other, throttled, disabled].map((d) => sent(d.url))).toEqual([1, 1, 0, 0]);
    const rows = await sql<{ id: string; status: string; attempt_count: number }>(
      'select id, status, attempt_count from webhook_deliveries where id in (?) order by id',
      [ids.slice(0, 4)],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.attempt_count]]))).toEqual({
      [plain.id]: ['succeeded', 1],
      [other.id]: ['pending', 1],
      [throttled.id]: ['pending', 0],
      [disabled.id]: ['pending', 0],
    });
    // Claimed already: the same first attempts again send nothing (a fan-out redone by the relay).
    expect(await Promise.all([...attempts.firsts(ids, 60_000).attempts.values()])).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect([plain, other].map((d) => sent(d.url))).toEqual([1, 1]);
  });

  it('a claim the database refuses holds the fan-out up for nothing: `send` settles, and each delivery is left to its workflow', async () => {
    const warnings: unknown[] = [];
    const log = createLogger('silent');
    log.warn = ((obj: unknown) => void warnings.push(obj)) as typeof log.warn;
    // A NUL byte is text PostgreSQL refuses, so the one statement that claims them all fails.
    const ids = ['whd_\u0000refused', 'whd_unknown'];
    const { attempts, posted } = createDeliveryAttempts(deps()).firsts(ids, 60_000);
    await expect(posted).resolves.toBeUndefined();
    for (const attempt of attempts.values()) await expect(attempt).rejects.toThrow();
    const firstAttempts = createFirstAttempts(createDeliveryAttempts(deps()), log);
    await expect(firstAttempts.send(ids)).resolves.toBeUndefined();
    await firstAttempts.settled();
    expect(warnings).toHaveLength(2);
    // Nothing is left under way: the workflow's own first attempt does not wait for one.
    await expect(firstAttempts.underWay(ids[0])).resolves.toBeUndefined();
  });
});
