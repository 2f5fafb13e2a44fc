import Stripe from 'stripe';
import { recordEvent } from '../../src/modules/events/index.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually, startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.js';

/** Webhook operations on the real stack: the test ping, recovery after an outage, the throttle, Retry-After. */
let receiver: Receiver;
// Three attempts a second apart instead of the spec's 7 over a day (tests only).
const stack = useStack(async () => ({ WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile, WEBHOOK_RETRY_DELAYS: '0,1s,1s' }));
const biz = useBusiness(stack);
afterAll(async () => receiver?.close());

async function endpoint(events: string[], answers?: Answer[], extra: Record<string, unknown> = {}) {
  const url = receiver.url(answers);
  const res = await stack.http.post('/api/webhooks', { url, events, ...extra }, { key: biz.testKey });
  expect(res.status).toBe(201);
  return { id: res.body.data.endpoint.id as string, secret: res.body.data.secret as string, url };
}

const emit = (type: 'checkout.succeeded', payload: Record<string, unknown> = { sessionId: 'ses-ops' }) =>
  stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, { businessId: biz.id, livemode: false }, type, payload).id);

const sql = <T = any>(query: string, params: unknown[] = []) => stack.orm.em.getConnection().execute<T[]>(query, params);
const hits = (url: string, count: number, timeoutMs = 20_000) => eventually(() => receiver.at(url).length >= count && receiver.at(url), timeoutMs);

describe('POST /api/webhooks/:id/test', () => {
  it('sends one signed webhook.test to that endpoint only, whatever it subscribes to, and logs it with test: true', async () => {
    const hook = await endpoint(['refund.completed']);
    const other = await endpoint(['*']);
    const res = await stack.http.post(`/api/webhooks/${hook.id}/test`, undefined, { key: biz.testKey });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body.data).sort()).toEqual(['deliveryId', 'eventId']);
    const { eventId, deliveryId } = res.body.data;

    const [got] = await hits(hook.url, 1);
    const raw = got.rawBody.toString('utf8');
    // A standard t=…,v1=… verifier (Stripe's) accepts it with the endpoint's secret.
    const verified = new Stripe('sk_test_unused').webhooks.constructEvent(raw, String(got.headers['x-webhook-signature']), hook.secret, 300);
    expect(verified.id).toBe(eventId);
    const body = JSON.parse(raw);
    expect(body).toMatchObject({ id: eventId, type: 'webhook.test', eventType: 'webhook.test', test: true, payload: { endpointId: hook.id } });

    const log = await eventually(async () => {
      const page = await stack.http.get('/api/webhooks/events?eventType=webhook.test', { key: biz.testKey });
      const item = page.body.data.items.find((i: any) => i.id === eventId);
      return item?.deliveries[0]?.status === 'succeeded' && item;
    });
    expect(log.test).toBe(true);
    expect(log.deliveries.map((d: any) => [d.id, d.endpointId])).toEqual([[deliveryId, hook.id]]);
    expect(receiver.at(other.url)).toHaveLength(0);
  });

  it('sends a sample of any subscribable type (aliases too); a real event shows test: false', async () => {
    const hook = await endpoint(['refund.completed']);
    const res = await stack.http.post(`/api/webhooks/${hook.id}/test`, { eventType: 'checkout.completed' }, { key: biz.testKey });
    expect(res.status).toBe(202);
    const [got] = await hits(hook.url, 1);
    const body = JSON.parse(got.rawBody.toString('utf8'));
    expect(body).toMatchObject({ type: 'checkout.succeeded', test: true });
    expect(Object.keys(body.payload).sort()).toEqual(['amount', 'amountInDecimals', 'currency', 'customerEmail', 'customerName', 'sessionId', 'shipping', 'timestamp']);

    const real = await emit('checkout.succeeded');
    const page = await eventually(async () => {
      const p = await stack.http.get('/api/webhooks/events?eventType=checkout.succeeded', { key: biz.testKey });
      return p.body.data.items.some((i: any) => i.id === real) && p;
    });
    expect(page.body.data.items.find((i: any) => i.id === real).test).toBe(false);
    expect(JSON.parse((await hits(hook.url, 1))[0].rawBody.toString('utf8')).test).toBe(true);
  });

  it('refuses an unknown type (400), a disabled endpoint (400) and an unknown endpoint (404)', async () => {
    const hook = await endpoint(['*']);
    const unknown = await stack.http.post(`/api/webhooks/${hook.id}/test`, { eventType: 'checkout.exploded' }, { key: biz.testKey });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'validation_error', errors: [{ path: ['eventType'], message: 'Unknown event type "checkout.exploded"' }] });
    await stack.http.patch(`/api/webhooks/${hook.id}`, { isActive: false }, { key: biz.testKey });
    const disabled = await stack.http.post(`/api/webhooks/${hook.id}/test`, {}, { key: biz.testKey });
    expect(disabled.status).toBe(400);
    expect(disabled.body.error).toMatchObject({ type: 'validation_error', message: 'Webhook endpoint is disabled' });
    const missing = await stack.http.post(`/api/webhooks/wh_${'0'.repeat(32)}/test`, {}, { key: biz.testKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found', message: 'Webhook endpoint not found' });
  });
});

describe('POST /api/webhooks/:id/recover', () => {
  it('after a receiver outage, re-sends each failed event of the window once, as a new generation', async () => {
    const hook = await endpoint(['checkout.succeeded']);
    const before = await emit('checkout.succeeded');
    await hits(hook.url, 1);
    await receiver.down();
    const lost = [await emit('checkout.succeeded'), await emit('checkout.succeeded')];
    await eventually(async () => {
      const rows = await sql("select status from webhook_deliveries where endpoint_id = ? and status = 'failed'", [hook.id]);
      return rows.length === 2;
    }, 30_000);
    await receiver.recover();

    const since = new Date(Date.now() - 3600_000).toISOString();
    const first = await stack.http.post(`/api/webhooks/${hook.id}/recover`, { since }, { key: biz.testKey });
    expect(first.status).toBe(202);
    expect(first.body.data).toEqual({ recovered: 2, hasMore: false });
    // The same call again while those are in flight (or done): nothing twice.
    const again = await stack.http.post(`/api/webhooks/${hook.id}/recover`, { since }, { key: biz.testKey });
    expect(again.body.data).toEqual({ recovered: 0, hasMore: false });

    await hits(hook.url, 3);
    const rows = await eventually(async () => {
      const r = await sql('select event_id, generation, status from webhook_deliveries where endpoint_id = ? and generation = 1', [hook.id]);
      return r.length === 2 && r.every((d) => d.status === 'succeeded') && r;
    });
    expect(rows.map((r) => r.event_id).sort()).toEqual([...lost].sort());
    expect(receiver.at(hook.url).map((h) => JSON.parse(h.rawBody.toString('utf8')).id).sort()).toEqual([before, ...lost].sort());
  }, 60_000);

  it('takes only events of the window, up to `until`', async () => {
    const hook = await endpoint(['checkout.succeeded'], [{ status: 500 }]);
    const old = await emit('checkout.succeeded');
    await eventually(async () => (await sql("select 1 from webhook_deliveries where event_id = ? and status = 'failed'", [old])).length === 1, 30_000);
    const until = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const later = await emit('checkout.succeeded');
    await eventually(async () => (await sql("select 1 from webhook_deliveries where event_id = ? and status = 'failed'", [later])).length === 1, 30_000);
    const res = await stack.http.post(`/api/webhooks/${hook.id}/recover`, { since: new Date(Date.now() - 60_000).toISOString(), until }, { key: biz.testKey });
    expect(res.body.data).toEqual({ recovered: 1, hasMore: false });
    expect(await sql('select event_id from webhook_deliveries where endpoint_id = ? and generation = 1', [hook.id])).toEqual([{ event_id: old }]);
  }, 60_000);

  it('refuses `since` more than 14 days ago, `until` before it, and a missing `since` (400 validation_error)', async () => {
    const hook = await endpoint(['*']);
    const recover = (body: unknown) => stack.http.post(`/api/webhooks/${hook.id}/recover`, body, { key: biz.testKey });
    // Exactly 14 days ago, as a client computed it a moment before sending, is within the window.
    expect((await recover({ since: new Date(Date.now() - 14 * 24 * 3600_000).toISOString() })).status).toBe(202);
    const tooOld = await recover({ since: new Date(Date.now() - 14 * 24 * 3600_000 - 5 * 60_000).toISOString() });
    expect(tooOld.status).toBe(400);
    expect(tooOld.body.error).toMatchObject({ type: 'validation_error', errors: [{ path: ['since'], message: 'since must be no more than 14 days ago' }] });
    const backwards = await recover({ since: new Date(Date.now() - 3600_000).toISOString(), until: new Date(Date.now() - 7200_000).toISOString() });
    expect(backwards.body.error).toMatchObject({ type: 'validation_error', errors: [{ path: ['until'] }] });
    // Without `until` the window ends now, so a `since` in the future is the same backwards window.
    const future = await recover({ since: new Date(Date.now() + 24 * 3600_000).toISOString() });
    expect(future.status).toBe(400);
    expect(future.body.error).toMatchObject({ type: 'validation_error', errors: [{ path: ['since'], message: 'since must not be in the future' }] });
    expect((await recover({})).body.error).toMatchObject({ type: 'validation_error', errors: [{ path: ['since'] }] });
    expect((await recover({ since: 'yesterday' })).status).toBe(400);
  });
});

describe('per-endpoint throttle: rateLimitPerSecond', () => {
  /**
   * What arrives at the receiver carries, on top of the turn the throttle gave each attempt, its own
   * connection's TLS handshake and the machine's load, which differ from one attempt to the next: each
   * arrival may come this much late or early against its neighbours (324 ms seen once on a CI machine whose
   * workflow tasks took 8 s, where 150 had been allowed). Less than the 500 ms between turns: without the
   * throttle, the eight arrive within a few tens of milliseconds of each other. The turns themselves are
   * judged exactly, by the database's clock, below.
   */
  const JITTER_MS = 400;

  it('spaces arrivals at the receiver to the rate, at most that many in any second, losing none and failing none', async () => {
    const rate = 2;
    const count = 8;
    const hook = await endpoint(['checkout.succeeded'], undefined, { rateLimitPerSecond: rate });
    for (let i = 0; i < count; i++) await emit('checkout.succeeded', { sessionId: `ses-${i}` });
    const arrivals = (await hits(hook.url, count, 30_000)).map((hit) => hit.at);

    // The spacing, as the receiver sees it: the i-th arrival no sooner than i/rate s after the first. Judged
    // against its turn rather than its neighbour: one attempt's handshake held up on a loaded machine and
    // the next on time arrive closer than 1/rate s apart (237 ms, seen once under stress-ng), yet neither
    // came before its turn. Without the throttle all eight arrive within tens of milliseconds.
    const late = arrivals.map((at, i) => at - arrivals[0] - (i * 1000) / rate);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(-JITTER_MS);
    // How many arrive per second: no second that begins at an arrival (less the allowance) holds more than `rate`.
    const perSecond = arrivals.map((from) => arrivals.filter((at) => at >= from && at < from + 1000 - JITTER_MS).length);
    expect(Math.max(...perSecond)).toBeLessThanOrEqual(rate);
    // Over the whole run: count arrivals take (count - 1) / rate seconds at least.
    expect(arrivals[count - 1] - arrivals[0]).toBeGreaterThanOrEqual(((count - 1) * 1000) / rate - JITTER_MS);

    const rows = await eventually(async () => {
      const r = await sql('select status, attempt_count from webhook_deliveries where endpoint_id = ?', [hook.id]);
      return r.length === count && r.every((d) => d.status === 'succeeded') && r;
    });
    expect(rows.every((r) => r.attempt_count === 1)).toBe(true);
    // The throttle's own record, with no network or load in it: each attempt began (its turn, by the
    // database's clock) at least 1/rate s after the one before.
    const began = (
      await sql('select a.attempted_at from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ? order by a.attempted_at', [hook.id])
    ).map((r) => new Date(r.attempted_at).getTime());
    expect(began).toHaveLength(count);
    expect(Math.min(...began.slice(1).map((t, i) => t - began[i]))).toBeGreaterThanOrEqual(1000 / rate - 1);
    expect(await sql('select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ? and not a.succeeded', [hook.id])).toEqual([{ n: 0 }]);
  }, 60_000);

  it('is 1 to 1000 on create and update; null removes it', async () => {
    const url = receiver.url();
    const range = 'rateLimitPerSecond must be an integer from 1 to 1000';
    const type = 'rateLimitPerSecond must be an integer, such as 1';
    for (const [bad, message] of [[0, range], [1001, range], [2.5, type], ['5', type]] as const) {
      const res = await stack.http.post('/api/webhooks', { url, events: ['*'], rateLimitPerSecond: bad }, { key: biz.testKey });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'validation_error', errors: [{ path: ['rateLimitPerSecond'], message }] });
    }
    const hook = await endpoint(['*'], undefined, { rateLimitPerSecond: 1000 });
    expect((await stack.http.get(`/api/webhooks/${hook.id}`, { key: biz.testKey })).body.data.rateLimitPerSecond).toBe(1000);
    expect((await stack.http.put(`/api/webhooks/${hook.id}`, { rateLimitPerSecond: 1 }, { key: biz.testKey })).body.data.rateLimitPerSecond).toBe(1);
    expect((await stack.http.patch(`/api/webhooks/${hook.id}`, { rateLimitPerSecond: 0 }, { key: biz.testKey })).status).toBe(400);
    expect((await stack.http.patch(`/api/webhooks/${hook.id}`, { rateLimitPerSecond: null }, { key: biz.testKey })).body.data.rateLimitPerSecond).toBeNull();
  });
});

describe('Retry-After on 429 and 503', () => {
  it("postpones the delivery's next attempt, and the endpoint's other deliveries, to then; the attempt counts", async () => {
    const hook = await endpoint(['checkout.succeeded'], [{ status: 429, headers: { 'Retry-After': '3' } }, { status: 200 }]);
    const first = await emit('checkout.succeeded');
    const [refused] = await hits(hook.url, 1);
    const second = await emit('checkout.succeeded');
    const got = await hits(hook.url, 3, 30_000);
    // The schedule's next delay is 1 s; the receiver asked for 3 s, for this endpoint.
    for (const h of got.slice(1)) expect(h.at - refused.at).toBeGreaterThanOrEqual(2_900);
    const rows = await eventually(async () => {
      const r = await sql('select event_id, status, attempt_count from webhook_deliveries where endpoint_id = ? order by created_at', [hook.id]);
      return r.length === 2 && r.every((d) => d.status === 'succeeded') && r;
    });
    expect(rows).toEqual([
      { event_id: first, status: 'succeeded', attempt_count: 2 },
      { event_id: second, status: 'succeeded', attempt_count: 1 },
    ]);
  }, 60_000);

  it('takes an HTTP date too', async () => {
    const at = new Date(Date.now() + 4_000);
    const hook = await endpoint(['checkout.succeeded'], [{ status: 503, headers: { 'Retry-After': at.toUTCString() } }, { status: 200 }]);
    await emit('checkout.succeeded');
    const got = await hits(hook.url, 2, 30_000);
    expect(got[1].at).toBeGreaterThanOrEqual(Math.floor(at.getTime() / 1000) * 1000 - 100);
  }, 60_000);
});

describe('disabledReason and disabledAt', () => {
  it('are manual and the time when switched off through the API, and cleared when switched on again', async () => {
    const hook = await endpoint(['*']);
    const created = (await stack.http.get(`/api/webhooks/${hook.id}`, { key: biz.testKey })).body.data;
    expect(created).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    const off = await stack.http.patch(`/api/webhooks/${hook.id}`, { isActive: false }, { key: biz.testKey });
    expect(off.body.data).toMatchObject({ enabled: false, isActive: false, disabledReason: 'manual' });
    expect(Date.parse(off.body.data.disabledAt)).toBeGreaterThan(Date.now() - 60_000);
    const on = await stack.http.put(`/api/webhooks/${hook.id}`, { enabled: true }, { key: biz.testKey });
    expect(on.body.data).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    const createdOff = await stack.http.post('/api/webhooks', { url: receiver.url(), events: ['*'], enabled: false }, { key: biz.testKey });
    expect(createdOff.body.data.endpoint).toMatchObject({ enabled: false, disabledReason: 'manual' });
  });
});
