import type { HttpClient } from '../support/http.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { paidSession, until, workflowResult } from './support/flows.js';
import { moneyProblems } from './support/money.js';
import { useStack } from '../support/use-stack.js';
import { sql } from '../support/payments.js';

/**
 * A merchant's receiver is down (its port refuses connections) for the first attempts of a delivery
 * and comes back; the delivery arrives, once, on the next scheduled attempt. The schedule is the spec's
 * shape shortened for the test (WEBHOOK_RETRY_DELAYS, refused outside tests): 0, 2 s, 2 s, … 7 attempts.
 */
const DELAYS_MS = [0, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000];

let receiver: Receiver;
const stack = useStack(
  async () => ({
    WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile,
    WEBHOOK_RETRY_DELAYS: DELAYS_MS.map((ms) => `${ms / 1000}s`).join(',').replace(/^0s/, '0'),
  }),
  { processes: 'receiver_outage' },
);
afterAll(async () => receiver?.close());
let http: HttpClient;

beforeAll(async () => {
  await stack.processes.worker();
  const api = await stack.processes.api();
  http = stack.client(api.origin);
}, 120_000);

describe('a webhook receiver down for the first attempts', () => {
  it('gets the delivery on the scheduled retry after it comes back, exactly once', async () => {
    const biz = await stack.business();
    const url = receiver.url();
    expect((await http.post('/api/webhooks', { url, events: ['checkout.succeeded'] }, { key: biz.testKey })).status).toBe(201);
    await receiver.down();
    const session = await paidSession(http, biz.testKey);

    const delivery = await until('the delivery', async () => {
      const [row] = await sql(stack,
        `select d.id, d.event_id from webhook_deliveries d join events e on e.id = d.event_id where e.payload->>'sessionId' = ?`,
        [session.id],
      );
      return row;
    });
    const attempts = () =>
      sql<{ attempt_number: number; attempted_at: Date; succeeded: boolean; status_code: number | null; error: string | null }>(stack,
        'select attempt_number, attempted_at, succeeded, status_code, error from webhook_attempts where delivery_id = ? order by attempt_number',
        [delivery.id],
      );
    await until('two failed attempts', async () => (await attempts()).length === 2, 30_000);
    const [pending] = await sql(stack, 'select status, next_attempt_at from webhook_deliveries where id = ?', [delivery.id]);
    expect(pending.status).toBe('pending');
    expect(pending.next_attempt_at).not.toBeNull();
    await receiver.recover();

    expect(await workflowResult(stack.temporal, `webhook-delivery-${delivery.id}`)).toBe('succeeded');
    const log = await attempts();
    expect(log.map((a) => [a.attempt_number, a.succeeded, a.status_code])).toEqual([
      [1, false, null],
      [2, false, null],
      [3, true, 200],
    ]);
    expect(log[0].error).toMatch(/ECONNREFUSED/);
    // Each retry waited its scheduled delay.
    const at = (n: number) => new Date(log[n].attempted_at).getTime();
    for (const n of [1, 2]) expect(at(n) - at(n - 1)).toBeGreaterThanOrEqual(DELAYS_MS[n]);
    const [done] = await sql(stack, 'select status, attempt_count from webhook_deliveries where id = ?', [delivery.id]);
    expect(done).toEqual({ status: 'succeeded', attempt_count: 3 });
    expect(receiver.at(url)).toHaveLength(1);
    expect(receiver.at(url)[0].headers['x-webhook-id']).toBe(delivery.event_id);
  }, 90_000);

  it('leaves ledger verify clean', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});
