import { recordEvent } from '../../src/modules/events/index.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually, startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.js';

let receiver: Receiver;
// Three attempts a second apart: a second POST, were there one, comes within the test's wait.
const stack = useStack(async () => ({ WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile, WEBHOOK_RETRY_DELAYS: '0,1s,1s' }));
const biz = useBusiness(stack);
afterAll(async () => receiver?.close());

const sql = (query: string, params: unknown[] = []) => stack.orm.em.getConnection().execute(query, params);

async function endpoint(answers?: Answer[], key = biz.testKey) {
  const url = receiver.url(answers);
  const res = await stack.http.post('/api/webhooks', { url, events: ['refund.created'] }, { key });
  expect(res.status).toBe(201);
  return { id: res.body.data.endpoint.id as string, url };
}

const emit = (payload: Record<string, unknown>) =>
  stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, { businessId: biz.id, livemode: false }, 'refund.created', payload).id);

describe('a receiver that answers 2xx with bytes that are not text', () => {
  it.each([
    ['a NUL byte', Buffer.from('ok\u0000done', 'utf8'), 'ok\uFFFDdone'],
    ['invalid UTF-8', Buffer.from([0x6f, 0x6b, 0xff, 0xc0, 0x80, 0x21]), 'ok\uFFFD\uFFFD\uFFFD!'],
  ])('gets the event exactly once when its body holds %s, and the attempt is stored sanitised', async (_what, body, stored) => {
    const hook = await endpoint([{ status: 200, body, headers: { 'Content-Type': 'text/plain' } }]);
    const eventId = await emit({ refundId: `ref_${hook.id}` });
    const [delivery] = await eventually(async () => {
      const rows = await sql('select * from webhook_deliveries where event_id = ? and endpoint_id = ?', [eventId, hook.id]);
      return rows.length === 1 && rows[0].status !== 'pending' && rows[0].status !== 'delivering' && rows;
    });
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 1, last_status_code: 200 });
    // Longer than the rest of the shortened schedule: a failed record would have posted again by now.
    await new Promise((r) => setTimeout(r, 3000));
    expect(receiver.at(hook.url)).toHaveLength(1);
    const attempts = await sql('select * from webhook_attempts where delivery_id = ?', [delivery.id]);
    expect(attempts.map((a: any) => [a.attempt_number, a.status_code, a.succeeded, a.response_body])).toEqual([[1, 200, true, stored]]);

    const log = await stack.http.get(`/api/webhooks/events?endpointId=${hook.id}`, { key: biz.testKey });
    expect(log.status).toBe(200);
    expect(log.body.data.items[0].deliveries[0].attempts[0]).toMatchObject({ statusCode: 200, succeeded: true, responseBody: stored });
  });
});

describe('POST /api/webhooks: at most 16 endpoints per business and mode', () => {
  const create = (key: string, n: number) => stack.http.post('/api/webhooks', { url: receiver.url(), events: ['*'], description: `#${n}` }, { key });
  const live = (businessId: string, livemode: boolean) =>
    sql('select count(*)::int as n from webhook_endpoints where business_id = ? and livemode = ? and deleted_at is null', [businessId, livemode]);

  it('refuses the 17th with 400 validation_error, counts each mode apart, and lets a deleted one make room', async () => {
    const owner = await stack.business();
    const ids: string[] = [];
    for (let n = 1; n <= 16; n++) {
      const res = await create(owner.testKey, n);
      expect(res.status).toBe(201);
      ids.push(res.body.data.endpoint.id);
    }
    const refused = await create(owner.testKey, 17);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      success: false,
      error: { type: 'validation_error', message: 'Too many webhook endpoints (max 16)', requestId: expect.stringMatching(/^req_/) },
    });
    expect((await live(owner.id, false))[0].n).toBe(16);

    // Live mode has its own 16.
    expect((await create(owner.liveKey, 1)).status).toBe(201);

    const deleted = await stack.http.delete(`/api/webhooks/${ids[0]}`, { key: owner.testKey });
    expect(deleted.status).toBe(200);
    expect((await create(owner.testKey, 18)).status).toBe(201);
    expect((await create(owner.testKey, 19)).status).toBe(400);
  });

  it('holds under concurrency: 17 creates at once leave 16 endpoints and one refusal', async () => {
    const owner = await stack.business();
    const answers = await Promise.all(Array.from({ length: 17 }, (_, n) => create(owner.testKey, n)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(16).fill(201), 400]);
    const refused = answers.find((a) => a.status === 400)!;
    expect(refused.body.error).toMatchObject({ type: 'validation_error', message: 'Too many webhook endpoints (max 16)' });
    expect((await live(owner.id, false))[0].n).toBe(16);
  });
});
