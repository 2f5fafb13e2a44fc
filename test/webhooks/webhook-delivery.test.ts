import { createHmac, timingSafeEqual } from 'node:crypto';
import { webhookDeliveryWorkflowId } from '../../contracts/workflow-ids.js';
import { recordEvent, type EventType } from '../../src/modules/events/index.js';
import { createSession, payToCompletion } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually, startReceiver, type Answer, type Receiver, type ReceivedWebhook } from '../support/webhook-receiver.js';

let receiver: Receiver;
// Three attempts a second apart instead of the spec's 7 over a day; the schedule itself is proved in
// test/webhooks/webhooks.workflow.test.ts on the time-skipping server.
const stack = useStack(async () => ({ WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile, WEBHOOK_RETRY_DELAYS: '0,1s,1s' }));
const biz = useBusiness(stack);
afterAll(async () => receiver?.close());

/**
 * The receiver's own check, written from the spec alone (not the service's helper): HMAC-SHA256 of
 * `${t}.${rawBody}` keyed by the secret, hex, any v1 may match, constant-time, 300 s tolerance.
 */
function verifiedByMerchant(hook: ReceivedWebhook, secret: string): boolean {
  const header = String(hook.headers['x-webhook-signature']);
  const fields = header.split(',').map((kv) => kv.split('='));
  const t = Number(fields.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(hook.rawBody).digest();
  return fields
    .filter(([k]) => k === 'v1')
    .some(([, hex]) => hex.length === 64 && timingSafeEqual(expected, Buffer.from(hex, 'hex')));
}

async function endpoint(events: string[], answers?: Answer[], key = biz.testKey) {
  const url = receiver.url(answers);
  const res = await stack.http.post('/api/webhooks', { url, events }, { key });
  expect(res.status).toBe(201);
  return { id: res.body.data.endpoint.id as string, secret: res.body.data.secret as string, url };
}

/** An event committed as a producer would (event + outbox row in one transaction); the relay fans it out. */
async function emit(type: EventType, payload: Record<string, unknown>, owner = { businessId: biz.id, livemode: false }) {
  return stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, owner, type, payload).id);
}

const deliveries = (eventId: string) =>
  stack.orm.em.getConnection().execute('select * from webhook_deliveries where event_id = ? order by generation, created_at', [eventId]);
/** The delivery's workflow, once started (after the fan-out's first attempt), run to its end. */
const workflowEnded = async (deliveryId: string) => {
  const handle = stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId));
  await eventually(() => handle.describe().catch(() => undefined));
  return handle.result();
};
const finished = (eventId: string, count = 1) =>
  eventually(async () => {
    const rows = await deliveries(eventId);
    return rows.length >= count && rows.every((r: any) => r.status === 'succeeded' || r.status === 'failed') && rows;
  });

describe('webhook delivery, end to end', () => {
  it('delivers a signed checkout.succeeded after a real payment (card 4242…)', async () => {
    const hook = await endpoint(['checkout.succeeded']);
    const session = await createSession(stack, biz.testKey);
    await payToCompletion(stack, session.id);
    const [got] = await eventually(() => receiver.at(hook.url).length > 0 && receiver.at(hook.url));
    expect(verifiedByMerchant(got, hook.secret)).toBe(true);
    const body = JSON.parse(got.rawBody.toString('utf8'));
    expect(body).toMatchObject({ eventType: 'checkout.succeeded', type: 'checkout.succeeded', livemode: false });
    expect(body.eventId).toBe(body.id);
    expect(body.payload).toMatchObject({ sessionId: session.id, amount: session.total, currency: 'USD', customerEmail: 'buyer@example.com' });
    expect(body.data).toEqual(body.payload);
    expect(got.headers['x-webhook-id']).toBe(body.id);
  });

  it('POSTs a signed event that an independent verifier accepts, with the spec headers and body', async () => {
    const hook = await endpoint(['checkout.succeeded']);
    const payload = { sessionId: 'ses-1', amount: 1234, amountInDecimals: '12.34', currency: 'USD' };
    const eventId = await emit('checkout.succeeded', payload);
    const [got] = await eventually(() => receiver.at(hook.url).length > 0 && receiver.at(hook.url));
    expect(verifiedByMerchant(got, hook.secret)).toBe(true);
    expect(verifiedByMerchant(got, 'whsec_wrong')).toBe(false);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/PaymentsService/);
    expect(got.headers['x-webhook-id']).toBe(eventId);
    expect(got.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(got.headers['x-webhook-timestamp']).toBe(/^t=(\d+)/.exec(String(got.headers['x-webhook-signature']))![1]);
    const body = JSON.parse(got.rawBody.toString('utf8'));
    expect(body).toEqual({
      id: eventId,
      eventId,
      eventType: 'checkout.succeeded',
      type: 'checkout.succeeded',
      createdAt: expect.any(String),
      sequence: expect.any(Number),
      livemode: false,
      payload,
      data: payload,
    });
    const [delivery] = await finished(eventId);
    expect(delivery.status).toBe('succeeded');
  });

  it('retries a receiver that answers 500, sends the same bytes again, and logs every attempt', async () => {
    const hook = await endpoint(['refund.created'], [{ status: 500, body: 'x'.repeat(3000) }, { status: 200, body: 'thanks' }]);
    const eventId = await emit('refund.created', { refundId: 'ref_1', amount: 500 });
    const [delivery] = await finished(eventId);
    expect(delivery.status).toBe('succeeded');
    const got = receiver.at(hook.url);
    expect(got).toHaveLength(2);
    expect(got[1].rawBody.equals(got[0].rawBody)).toBe(true);
    expect(got.every((g) => verifiedByMerchant(g, hook.secret))).toBe(true);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(900);

    const log = await stack.http.get(`/api/webhooks/events?endpointId=${hook.id}`, { key: biz.testKey });
    expect(log.status).toBe(200);
    const [event] = log.body.data.items;
    expect(event).toMatchObject({ id: eventId, eventType: 'refund.created' });
    expect(event.deliveries).toHaveLength(1);
    const { attempts } = event.deliveries[0];
    expect(event.deliveries[0]).toMatchObject({ id: delivery.id, endpointId: hook.id, status: 'succeeded', attemptCount: 2 });
    expect(attempts.map((a: any) => [a.attemptNumber, a.statusCode, a.succeeded, a.error])).toEqual([
      [1, 500, false, 'HTTP 500'],
      [2, 200, true, null],
    ]);
    expect(attempts[0].responseBody).toBe('x'.repeat(1024)); // the first 1 KB only
    expect(attempts[1].responseBody).toBe('thanks');
    expect(attempts.every((a: any) => typeof a.durationMs === 'number' && Date.parse(a.attemptedAt) > 0)).toBe(true);
  });

  it('marks a delivery failed after the last attempt, and does not follow redirects', async () => {
    const target = receiver.url();
    const hook = await endpoint(['refund.failed'], [{ status: 302, headers: { Location: target } }]);
    const eventId = await emit('refund.failed', { refundId: 'ref_2' });
    const [delivery] = await finished(eventId);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 3, last_status_code: 302 });
    expect(receiver.at(hook.url)).toHaveLength(3);
    expect(receiver.at(target)).toHaveLength(0);
  });

  it('sends nothing to a disabled or a deleted endpoint', async () => {
    const disabled = await endpoint(['withdrawal.failed']);
    const deleted = await endpoint(['withdrawal.failed']);
    const control = await endpoint(['withdrawal.failed']);
    await stack.http.patch(`/api/webhooks/${disabled.id}`, { isActive: false }, { key: biz.testKey });
    await stack.http.delete(`/api/webhooks/${deleted.id}`, { key: biz.testKey });
    const eventId = await emit('withdrawal.failed', { withdrawalId: 'wd_1' });
    await finished(eventId);
    expect(receiver.at(control.url)).toHaveLength(1);
    expect(receiver.at(disabled.url)).toHaveLength(0);
    expect(receiver.at(deleted.url)).toHaveLength(0);
    expect((await deliveries(eventId)).map((d: any) => d.endpoint_id)).toEqual([control.id]);
  });

  it('stops the pending retries of an endpoint that is deleted: the delete itself ends the delivery, and nothing more is sent', async () => {
    // The receiver's Retry-After puts the retry 5 s off (not the file's 1 s), so the delete finds the delivery
    // waiting for it, whatever a busy machine's pace.
    const hook = await endpoint(['refund.completed'], [{ status: 503, headers: { 'Retry-After': '5' } }, { status: 200 }]);
    const eventId = await emit('refund.completed', { refundId: 'ref_3' });
    const [waiting] = await eventually(async () => {
      const rows = await deliveries(eventId);
      return rows[0]?.status === 'pending' && rows[0].attempt_count === 1 && rows;
    });
    await stack.http.delete(`/api/webhooks/${hook.id}`, { key: biz.testKey });
    // Ended by the delete's own transaction, not by the retry finding it later.
    expect((await deliveries(eventId))[0]).toMatchObject({ status: 'failed', last_error: 'Endpoint deleted', next_attempt_at: null });
    // The workflow wakes at the retry, finds the delivery ended and sends nothing.
    await workflowEnded(waiting.id);
    expect(receiver.at(hook.url)).toHaveLength(1);
  });

  it('lets an attempt in flight when its endpoint is deleted finish, and sends no retry after it', async () => {
    // The first answer held 5 s: the delete commits while that attempt is still out.
    const hook = await endpoint(['refund.completed'], [{ status: 503, holdMs: 5_000 }, { status: 200 }]);
    const eventId = await emit('refund.completed', { refundId: 'ref_4' });
    await eventually(() => receiver.at(hook.url).length === 1);
    await stack.http.delete(`/api/webhooks/${hook.id}`, { key: biz.testKey });
    const [delivery] = await finished(eventId);
    expect(delivery).toMatchObject({ status: 'failed', last_error: 'Endpoint deleted' });
    await workflowEnded(delivery.id);
    expect(receiver.at(hook.url)).toHaveLength(1);
  });

  it('delivers the canonical event to alias subscriptions', async () => {
    const checkout = await endpoint(['checkout.completed']);
    const withdrawal = await endpoint(['withdrawal.completed']);
    const paid = await emit('withdrawal.paid', { withdrawalId: 'wd_2' });
    await finished(paid);
    expect(receiver.at(withdrawal.url)).toHaveLength(1);
    expect(JSON.parse(receiver.at(withdrawal.url)[0].rawBody.toString()).eventType).toBe('withdrawal.paid');
    expect(receiver.at(checkout.url)).toHaveLength(0);
    const succeeded = await emit('checkout.succeeded', { sessionId: 's' });
    await eventually(() => receiver.at(checkout.url).length === 1);
    expect(JSON.parse(receiver.at(checkout.url)[0].rawBody.toString()).type).toBe('checkout.succeeded');
    await finished(succeeded, 1);
  });

  it('keeps endpoints of other businesses and of the other mode out of a fan-out', async () => {
    const other = await stack.business();
    const mine = await endpoint(['*']);
    const theirs = await endpoint(['*'], undefined, other.testKey);
    const myLive = await endpoint(['*'], undefined, biz.liveKey);
    const eventId = await emit('checkout.failed', { sessionId: 's-iso' });
    await finished(eventId);
    expect(receiver.at(mine.url)).toHaveLength(1);
    expect(receiver.at(theirs.url)).toHaveLength(0);
    expect(receiver.at(myLive.url)).toHaveLength(0);
    const live = await emit('checkout.failed', { sessionId: 's-live' }, { businessId: biz.id, livemode: true });
    await eventually(() => receiver.at(myLive.url).length === 1);
    expect(JSON.parse(receiver.at(myLive.url)[0].rawBody.toString()).livemode).toBe(true);
    expect(receiver.at(mine.url)).toHaveLength(1);
    await finished(live);
  });

  it('signs with both the new and the previous secret after a rotation', async () => {
    const hook = await endpoint(['refund.created']);
    const rotated = await stack.http.post(`/api/webhooks/${hook.id}/rotate-secret`, undefined, { key: biz.testKey });
    const newSecret = rotated.body.data.secret;
    await finished(await emit('refund.created', { refundId: 'ref_rot' }));
    const [got] = receiver.at(hook.url);
    expect(String(got.headers['x-webhook-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifiedByMerchant(got, newSecret)).toBe(true);
    expect(verifiedByMerchant(got, hook.secret)).toBe(true);
  });
});

describe('POST /api/webhooks/retry/:id', () => {
  it('re-delivers an event to each endpoint whose last delivery of it failed', async () => {
    const failing = await endpoint(['checkout.failed'], [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 }]);
    const fine = await endpoint(['checkout.failed']);
    const eventId = await emit('checkout.failed', { sessionId: 's-retry' });
    const [first] = (await finished(eventId, 2)).filter((d: any) => d.endpoint_id === failing.id);
    expect(first.status).toBe('failed');

    const res = await stack.http.post(`/api/webhooks/retry/${eventId}`, undefined, { key: biz.testKey });
    expect(res.status).toBe(200);
    expect(res.body.data.deliveries).toHaveLength(1);
    const retried = res.body.data.deliveries[0];
    expect(retried).toMatchObject({ eventId, endpointId: failing.id, status: 'pending', generation: 1 });
    expect(retried.id).not.toBe(first.id);
    await finished(eventId, 3);
    expect(receiver.at(failing.url)).toHaveLength(4);
    expect(receiver.at(fine.url)).toHaveLength(1);
    expect(receiver.at(failing.url)[3].rawBody.equals(receiver.at(failing.url)[0].rawBody)).toBe(true);

    const again = await stack.http.post(`/api/webhooks/retry/${eventId}`, undefined, { key: biz.testKey });
    expect(again.body.data.deliveries).toEqual([]); // nothing failed any more
  });

  it('re-delivers just one delivery given its id', async () => {
    const a = await endpoint(['refund.created']);
    const b = await endpoint(['refund.created']);
    const eventId = await emit('refund.created', { refundId: 'ref_one' });
    const rows = await finished(eventId, 2);
    const ofA = rows.find((d: any) => d.endpoint_id === a.id);
    const res = await stack.http.post(`/api/webhooks/retry/${ofA!.id}`, undefined, { key: biz.testKey });
    expect(res.status).toBe(200);
    expect(res.body.data.deliveries).toMatchObject([{ eventId, endpointId: a.id, generation: 1 }]);
    await finished(eventId, 3);
    expect(receiver.at(a.url)).toHaveLength(2);
    expect(receiver.at(b.url)).toHaveLength(1);
    const log = await stack.http.get(`/api/webhooks/events?endpointId=${a.id}&status=succeeded`, { key: biz.testKey });
    expect(log.body.data.items[0].deliveries.map((d: any) => d.generation)).toEqual([0, 1]);
  });

  it('creates no second delivery when a retry is repeated with the same Idempotency-Key', async () => {
    const hook = await endpoint(['refund.created']);
    const eventId = await emit('refund.created', { refundId: 'ref_idem' });
    const delivery = (await finished(eventId)).find((d: any) => d.endpoint_id === hook.id)!;
    const headers = { 'Idempotency-Key': `retry-${delivery.id}` };
    const first = await stack.http.post(`/api/webhooks/retry/${delivery.id}`, undefined, { key: biz.testKey, headers });
    const replay = await stack.http.post(`/api/webhooks/retry/${delivery.id}`, undefined, { key: biz.testKey, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    await eventually(() => receiver.at(hook.url).length === 2);
    await finished(eventId);
    expect((await deliveries(eventId)).filter((d: any) => d.endpoint_id === hook.id)).toHaveLength(2);
    expect(receiver.at(hook.url)).toHaveLength(2);
  });

  it('answers 404 not_found for an unknown id, and for another business\'s event', async () => {
    const eventId = await emit('refund.created', { refundId: 'ref_x' });
    const other = await stack.business();
    for (const [id, key] of [
      ['evt_00000000000000000000000000000000', biz.testKey],
      ['whd_00000000000000000000000000000000', biz.testKey],
      ['something', biz.testKey],
      [eventId, other.testKey],
      [eventId, biz.liveKey],
    ]) {
      const res = await stack.http.post(`/api/webhooks/retry/${id}`, undefined, { key });
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found');
    }
  });
});

describe('GET /api/webhooks/events', () => {
  it('lists events newest first, filtered by type (aliases too), status and time, paginated', async () => {
    const own = await stack.business();
    const owner = { businessId: own.id, livemode: false };
    const hook = await endpoint(['*'], [{ status: 500 }], own.testKey);
    const e1 = await emit('withdrawal.paid', { withdrawalId: 'wd_a' }, owner);
    const e2 = await emit('refund.created', { refundId: 'ref_b' }, owner);
    const e3 = await emit('withdrawal.paid', { withdrawalId: 'wd_c' }, owner);
    await finished(e1);
    await finished(e2);
    await finished(e3);
    const get = (q: string) => stack.http.get(`/api/webhooks/events${q}`, { key: own.testKey });

    const all = await get('?limit=2');
    expect(all.body.data.items.map((e: any) => e.id)).toEqual([e3, e2]);
    expect(all.body.data.meta).toMatchObject({ total: 3, page: 1, limit: 2, totalPages: 2, hasNextPage: true });
    expect(all.body.data.items[0].deliveries[0]).toMatchObject({ endpointId: hook.id, status: 'failed', attemptCount: 3 });
    expect(all.body.data.items[0].deliveries[0].attempts).toHaveLength(3);

    expect((await get('?eventType=withdrawal.completed')).body.data.items.map((e: any) => e.id)).toEqual([e3, e1]);
    expect((await get('?status=succeeded')).body.data.items).toEqual([]);
    expect((await get('?status=failed')).body.data.meta.total).toBe(3);
    expect((await get(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.data.items).toEqual([]);
    const bad = await get('?status=lost');
    expect(bad.status).toBe(400);
    expect(bad.body.error.errors[0].path).toEqual(['status']);
  });
});
