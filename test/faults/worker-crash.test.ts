import { addWalletMethod, balanceOf, creditAvailable, testMode } from '../support/seed.js';
import type { HttpClient } from '../support/http.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { paidSession, until, walletWithdrawal, workflowResult } from './support/flows.js';
import { moneyProblems } from './support/money.js';
import { useStack } from '../support/use-stack.js';
import { sql } from '../support/payments.js';

/**
 * One worker process is SIGKILLed while four money moves are each at their most dangerous point: a
 * reserve release, a withdrawal and a refund have committed their last transaction but Temporal has not
 * heard it (so their activity will run again), and a webhook POST is in flight. A new worker process
 * (`src/main/worker.ts`) takes over; each move must finish exactly once.
 */
let receiver: Receiver;
const stack = useStack(
  async () => ({ WITHDRAWAL_PROCESSING_DELAY: '1s', WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile, WEBHOOK_RETRY_DELAYS: '0,1s,1s' }),
  { processes: 'worker_crash' },
);
afterAll(async () => receiver?.close());
let http: HttpClient;
/** A worker wired like src/main/worker.ts whose named activities stop at a point, to be SIGKILLed there. */
const FAULT_WORKER = 'test/faults/support/fault-worker.ts';

const ids = { reserve: '', withdrawal: '', refund: '', delivery: '', event: '' };
const owners = { reserve: '', withdrawal: '', refund: '' };
let webhookUrl = '';

beforeAll(async () => {
  const api = await stack.processes.api();
  http = stack.client(api.origin);
  const holding = await stack.processes.worker({
    name: 'holding-worker',
    entry: FAULT_WORKER,
    env: { FAULT_HOLD: 'releaseReserve:after,completeWithdrawal:after,completeRefund:after' },
  });

  // A reserve held for 2 s, so its release comes while the test waits.
  const bizR = await stack.business({ reserveHoldMs: 2_000 });
  owners.reserve = bizR.id;
  const sessionR = await paidSession(http, bizR.testKey);
  [{ id: ids.reserve }] = await sql(stack, 'select id from reserves where payment_id = ?', [sessionR.id]);

  const bizW = await stack.business();
  owners.withdrawal = bizW.id;
  await addWalletMethod(stack.orm, bizW.id);
  await creditAvailable(stack.orm, testMode(bizW.id), 10_000);
  const withdrawal = await http.post('/api/withdrawals', walletWithdrawal(40), { key: bizW.testKey });
  expect(withdrawal.status).toBe(201);
  ids.withdrawal = withdrawal.body.data.id;

  const bizF = await stack.business();
  owners.refund = bizF.id;
  const sessionF = await paidSession(http, bizF.testKey);
  await creditAvailable(stack.orm, testMode(bizF.id), 1_000);
  const refund = await http.post('/api/refunds', { checkoutSessionId: sessionF.id }, { key: bizF.testKey });
  expect(refund.status).toBe(201);
  ids.refund = refund.body.data.id;

  await holding.waitFor(`held releaseReserve "${ids.reserve}"`);
  await holding.waitFor(`held completeWithdrawal "${ids.withdrawal}"`);
  await holding.waitFor(`held completeRefund "${ids.refund}"`);

  // Last, because the POST's own deadline is 10 s: the receiver takes a minute over its first answer.
  const bizH = await stack.business();
  webhookUrl = receiver.url([{ status: 200, holdMs: 60_000 }, { status: 200 }]);
  expect((await http.post('/api/webhooks', { url: webhookUrl, events: ['checkout.succeeded'] }, { key: bizH.testKey })).status).toBe(201);
  await paidSession(http, bizH.testKey);
  await until('the webhook POST to arrive', async () => receiver.at(webhookUrl).length === 1, 30_000);
  [{ id: ids.delivery, event_id: ids.event }] = await sql(stack,
    `select d.id, d.event_id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.business_id = ?`,
    [bizH.id],
  );

  await holding.kill();
  expect(await holding.exited).toEqual({ code: null, signal: 'SIGKILL' });
}, 180_000);

const kinds = async (referenceId: string) =>
  (await sql(stack, 'select kind from ledger_transactions where reference_id = ? order by created_at', [referenceId])).map((r) => r.kind);
const eventTypes = async (field: string, id: string) =>
  (await sql(stack, `select type from events where payload->>'${field}' = ? order by created_at`, [id])).map((r) => r.type);
const result = (workflowId: string) => workflowResult(stack.temporal, workflowId);

describe('a worker SIGKILLed in the middle of a reserve release, a withdrawal, a refund and a webhook delivery', () => {
  it('left the committed work committed and the POST unanswered when it died', async () => {
    expect(await kinds(ids.reserve)).toEqual(['reserve.release']);
    expect(await kinds(ids.withdrawal)).toEqual(['withdrawal.created', 'withdrawal.paid']);
    expect(await kinds(ids.refund)).toEqual(['refund.created', 'refund.completed']);
    const [delivery] = await sql(stack, 'select status from webhook_deliveries where id = ?', [ids.delivery]);
    expect(delivery.status).toBe('delivering');
  });

  it('a new worker process finishes every workflow', async () => {
    await stack.processes.worker();
    // Each dead activity is retried once its start-to-close timeout (30 s) runs out.
    const results = await Promise.all([
      result(`reserve-release-${ids.reserve}`),
      result(`withdrawal-${ids.withdrawal}`),
      result(`refund-${ids.refund}`),
      result(`webhook-delivery-${ids.delivery}`),
    ]);
    expect(results).toEqual(['released', 'completed', 'completed', 'succeeded']);
  }, 120_000);

  it('released the reserve once', async () => {
    expect(await kinds(ids.reserve)).toEqual(['reserve.release']);
    const [reserve] = await sql(stack, 'select status, released_amount_in_cents from reserves where id = ?', [ids.reserve]);
    expect(reserve).toEqual({ status: 'released', released_amount_in_cents: '450' });
    expect(await balanceOf(stack.orm, testMode(owners.reserve))).toMatchObject({ available: 4498, reserved: 0 });
  });

  it('paid the withdrawal once', async () => {
    expect(await kinds(ids.withdrawal)).toEqual(['withdrawal.created', 'withdrawal.paid']);
    expect(await eventTypes('withdrawalId', ids.withdrawal)).toEqual(['withdrawal.paid']);
    expect(await balanceOf(stack.orm, testMode(owners.withdrawal))).toMatchObject({ available: 6_000, pendingWithdrawal: 0 });
  });

  it('completed the refund once', async () => {
    expect(await kinds(ids.refund)).toEqual(['refund.created', 'refund.completed']);
    expect(await eventTypes('refundId', ids.refund)).toEqual(['refund.created', 'refund.completed']);
    // 4048 available after the payment, 1000 credited, 4658 refunded from available.
    expect(await balanceOf(stack.orm, testMode(owners.refund))).toMatchObject({ available: 390, reserved: 450, refundsInFlight: 0 });
  });

  it('delivered the webhook on its scheduled retry: one delivery, acknowledged once', async () => {
    const deliveries = await sql(stack, 'select id, status from webhook_deliveries where event_id = ?', [ids.event]);
    expect(deliveries).toEqual([{ id: ids.delivery, status: 'succeeded' }]);
    // The first POST reached the receiver but its answer never reached the dead worker: the same event
    // goes again (the spec: "the same event may be delivered more than once"; eventId de-duplicates).
    const posts = receiver.at(webhookUrl);
    expect(posts).toHaveLength(2);
    expect(posts.map((p) => p.headers['x-webhook-id'])).toEqual([ids.event, ids.event]);
    expect(posts[1].rawBody.equals(posts[0].rawBody)).toBe(true);
    const attempts = await sql(stack, 'select attempt_number, succeeded from webhook_attempts where delivery_id = ? order by attempt_number', [ids.delivery]);
    expect(attempts).toEqual([{ attempt_number: 2, succeeded: true }]);
  });

  it('leaves ledger verify clean: no money created, lost or moved twice', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});
