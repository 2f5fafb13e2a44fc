import { randomUUID } from 'node:crypto';
import type { HttpClient, HttpResponse } from '../support/http.js';
import { sessionBody, sql } from '../support/payments.js';
import { addWalletMethod, balanceOf, creditAvailable, testMode } from '../support/seed.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { paidSession, until, walletWithdrawal, workflowResult } from './support/flows.js';
import { moneyProblems } from './support/money.js';
import { useStack } from '../support/use-stack.js';

/**
 * Several instances: two API processes and two worker processes on one PostgreSQL and one
 * Temporal, as a load balancer would spread clients over them. Each rule is checked with its requests
 * spread over both APIs and its work picked up by whichever worker polls first.
 */
let receiver: Receiver;
const stack = useStack(async () => ({ WITHDRAWAL_PROCESSING_DELAY: '1s', WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile }), { processes: 'instances' });
afterAll(async () => receiver?.close());
let apis: HttpClient[];

beforeAll(async () => {
  // One after another: four processes starting at once (each worker bundles its workflows) on two
  // cores took more than a minute to come up in a full run.
  const api1 = await stack.processes.api({ name: 'api-1' });
  const api2 = await stack.processes.api({ name: 'api-2' });
  await stack.processes.worker({ name: 'worker-1' });
  await stack.processes.worker({ name: 'worker-2' });
  apis = [stack.client(api1.origin), stack.client(api2.origin)];
}, 420_000); // four processes started one after another, each bounded by its own start timeout

/** Request `i` goes to API 1 or 2 in turn, as a round-robin balancer sends it. */
const api = (i: number) => apis[i % 2];

/** Every run of a workflow id (a second run would mean a second release or delivery). */
async function runsOf(workflowId: string): Promise<number> {
  let runs = 0;
  for await (const _ of stack.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs++;
  return runs;
}

/** Marks outbox rows undispatched again, as if their first dispatch had been lost, and waits for the relays. */
async function redispatch(where: string, params: unknown[]): Promise<void> {
  const rows = await sql(stack, `update outbox set dispatched_at = null, claimed_until = null where ${where} returning id`, params);
  expect(rows.length).toBeGreaterThan(0);
  const ids = rows.map((r) => r.id);
  await until('both relays to sweep the rows again', async () =>
    (await sql(stack, 'select count(*)::int as n from outbox where id in (?) and dispatched_at is null', [ids]))[0].n === 0,
  );
  await new Promise((r) => setTimeout(r, 1_500)); // time for a second workflow run or POST, were one (wrongly) under way
}

describe('two API processes and two worker processes on one PostgreSQL and one Temporal', () => {
  it('50 concurrent withdrawals over both APIs never overdraw, and the two workers between them pay each once', async () => {
    const biz = await stack.business();
    await addWalletMethod(stack.orm, biz.id);
    await creditAvailable(stack.orm, testMode(biz.id), 10_000); // $100.00; 50 × $3.00 = $150.00
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api(i).post('/api/withdrawals', walletWithdrawal(3), { key: biz.testKey })));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(33);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'validation_error', message: 'Insufficient available balance' });
    }
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 100, pendingWithdrawal: 9_900 });

    const outcomes = await Promise.all(created.map((r) => workflowResult(stack.temporal, `withdrawal-${r.body.data.id}`)));
    expect(new Set(outcomes)).toEqual(new Set(['completed']));
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 100, pendingWithdrawal: 0 });
    const paid = await sql(stack, `select count(*)::int as n from ledger_transactions where kind = 'withdrawal.paid' and business_id = ?`, [biz.id]);
    expect(paid[0].n).toBe(33);
    // The work really was shared: activities ran on both worker processes.
    const identities = new Set<string>();
    for (const r of created) {
      const history = await stack.temporal.workflow.getHandle(`withdrawal-${r.body.data.id}`).fetchHistory();
      for (const e of history.events ?? []) if (e.activityTaskStartedEventAttributes?.identity) identities.add(e.activityTaskStartedEventAttributes.identity);
    }
    expect(identities.size).toBe(2);
  }, 120_000);

  it('one Idempotency-Key sent 50 times at once over both APIs creates one session', async () => {
    const biz = await stack.business();
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api(i).post('/api/checkout/sessions', sessionBody(), { key: biz.testKey, headers: { 'Idempotency-Key': key } }),
      ),
    );
    const sessions = await sql(stack, 'select id from checkout_sessions where business_id = ?', [biz.id]);
    expect(sessions).toHaveLength(1);
    const created = answers.filter((a) => a.status === 201);
    expect(created.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(created.map((a) => a.body.data.id))).toEqual(new Set([sessions[0].id]));
    for (const a of answers.filter((a) => a.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body.error).toMatchObject({ type: 'idempotency_error', message: 'A request with this Idempotency-Key is in progress' });
    }
    // Once settled, both APIs replay the same answer.
    const [one, two] = await Promise.all(apis.map((c) => c.post('/api/checkout/sessions', sessionBody(), { key: biz.testKey, headers: { 'Idempotency-Key': key } })));
    expect(one.text).toBe(two.text);
    expect(one.body.data.id).toBe(sessions[0].id);
  });

  it('shares one rate limit between the APIs: 120 requests a minute per key (standard tier), not 120 on each', async () => {
    const biz = await stack.business({ rateLimitTier: 'standard' });
    const answers: { api: number; res: HttpResponse }[] = [];
    for (let batch = 0; batch < 14; batch++) {
      const sent = Array.from({ length: 10 }, (_, i) => api(i).get('/api/checkout/sessions', { key: biz.testKey }).then((res) => ({ api: i % 2, res })));
      answers.push(...(await Promise.all(sent)));
    }
    const allowed = answers.filter((a) => a.res.status === 200);
    const limited = answers.filter((a) => a.res.status === 429);
    expect(allowed).toHaveLength(120);
    expect(limited).toHaveLength(20);
    for (const a of limited) expect(a.res.body.error.type).toBe('rate_limit_exceeded');
    // Each API refused requests once the two together had spent the key's budget.
    expect(new Set(limited.map((a) => a.api))).toEqual(new Set([0, 1]));
  });

  it('releases each reserve once, even when both workers\' relays dispatch its start again', async () => {
    const biz = await stack.business({ reserveHoldMs: 2_000 });
    const sessions = await Promise.all(Array.from({ length: 6 }, (_, i) => paidSession(api(i), biz.testKey)));
    const reserves = await sql<{ id: string }>(stack, 'select id from reserves where payment_id in (?)', [sessions.map((s) => s.id)]);
    expect(reserves).toHaveLength(6);
    const results = await Promise.all(reserves.map((r) => workflowResult(stack.temporal, `reserve-release-${r.id}`)));
    expect(new Set(results)).toEqual(new Set(['released']));

    await redispatch(`message->>'workflowId' in (?)`, [reserves.map((r) => `reserve-release-${r.id}`)]);
    for (const r of reserves) expect(await runsOf(`reserve-release-${r.id}`)).toBe(1);
    const releases = await sql(stack, `select reference_id from ledger_transactions where kind = 'reserve.release' and business_id = ?`, [biz.id]);
    expect(releases.map((r) => r.reference_id).sort()).toEqual(reserves.map((r) => r.id).sort());
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 6 * 4_498, reserved: 0 });
  }, 120_000);

  it('sends each webhook once, even when both workers\' relays fan the events out again', async () => {
    const biz = await stack.business();
    const url = receiver.url();
    expect((await apis[0].post('/api/webhooks', { url, events: ['checkout.succeeded'] }, { key: biz.testKey })).status).toBe(201);
    const sessions = await Promise.all(Array.from({ length: 6 }, (_, i) => paidSession(api(i), biz.testKey)));
    await until('six deliveries', async () => receiver.at(url).length >= 6);
    const events = await sql<{ id: string }>(stack, `select id from events where business_id = ? and type = 'checkout.succeeded'`, [biz.id]);
    expect(events).toHaveLength(6);

    await redispatch(`message->>'kind' = 'event.fanout' and message->>'eventId' in (?)`, [events.map((e) => e.id)]);
    const deliveries = await sql<{ id: string; status: string }>(stack,
      `select d.id, d.status from webhook_deliveries d join events e on e.id = d.event_id where e.business_id = ?`,
      [biz.id],
    );
    expect(deliveries).toHaveLength(6);
    expect(new Set(deliveries.map((d) => d.status))).toEqual(new Set(['succeeded']));
    for (const d of deliveries) expect(await runsOf(`webhook-delivery-${d.id}`)).toBe(1);
    const posted = receiver.at(url).map((r) => r.headers['x-webhook-id']);
    expect(posted.sort()).toEqual(events.map((e) => e.id).sort());
    expect(sessions).toHaveLength(6);
  }, 120_000);

  it('leaves ledger verify clean: no money created, lost or moved twice', async () => {
    expect(await moneyProblems(stack.orm)).toEqual([]);
  });
});
