import { randomUUID } from 'node:crypto';
import { tsToDate, tsToMs } from '@temporalio/common/lib/time.js';

import { postgresChargeBook } from '../../src/modules/processor/index.js';
import { CHARGE_TIMEOUT_MESSAGE, createSimulatorProcessor, simulatorWithBook } from '../../src/modules/processor/simulator/charges.simulator.js';
import { PaymentStatus } from '../../contracts/search-attributes.js';
import { CARDS, createSession, eventually, parsedCard, pay, payBody, paymentPostings, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { EncryptionCodec } from '../../src/temporal/payload-codec.js';
import { encryptedPayloads, plainText } from '../support/history-payloads.js';
import { checkoutWorkflowId } from '../../contracts/workflow-ids.js';
import { registry } from '../../src/ops/metrics.js';

const stack = useStack();
const biz = useBusiness(stack);

const eventsOf = (sessionId: string) =>
  sql(stack, `select id, type, payload, livemode from events where payload->>'sessionId' = ? order by created_at`, [sessionId]);

describe("a pay call's time by phase (pay_call_phase_seconds, for an operator and the bench)", () => {
  const phases = async () => {
    const metric = await registry.getSingleMetric('pay_call_phase_seconds')!.get();
    const counts: Record<string, number> = {};
    for (const v of metric.values as { metricName?: string; labels: Record<string, unknown>; value: number }[]) {
      if (v.metricName === 'pay_call_phase_seconds_count') counts[String(v.labels.phase)] = v.value;
    }
    return counts;
  };

  it('observes each of its four phases once per pay, and none for a pay refused before its checks end', async () => {
    const before = await phases();
    const session = await createSession(stack, biz.testKey);
    expect((await pay(stack, session.id)).body.data.status).toBe('completed');
    const after = await phases();
    for (const phase of ['session', 'token', 'workflow', 'answer']) expect((after[phase] ?? 0) - (before[phase] ?? 0)).toBe(1);
    expect((await pay(stack, session.id)).status).toBe(400); // not payable: refused at the session's checks
    expect(await phases()).toEqual(after);
  });
});

/** temporal.api.enums.v1.EventType WORKFLOW_EXECUTION_STARTED, as fetchHistory gives it. */
const WORKFLOW_EXECUTION_STARTED = 1;

describe('POST /api/checkout/:id/pay: card outcomes', () => {
  it('pays with 4242…: completed, ledger split, reserve, checkout.succeeded in the outbox, redirect to successUrl', async () => {
    const session = await createSession(stack, biz.testKey);
    const res = await pay(stack, session.id); // no Authorization header: the page has no key
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { sessionId: session.id, status: 'completed', redirectUrl: `https://shop.example/ok?order=1001&session_id=${session.id}` },
    });

    const read = await stack.http.get(`/api/checkout/sessions/${session.id}`, { key: biz.testKey });
    expect(read.body.data.status).toBe('completed');
    expect(new Date(read.body.data.completedAt).toISOString()).toBe(read.body.data.completedAt);

    expect(await paymentPostings(stack, session.id)).toEqual({ processor_clearing: -4658, fee_revenue: 160, reserved: 450, available: 4048 });
    const [row] = await sql(stack, 'select card_brand, card_last4, customer_name, processor_charge_id from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ card_brand: 'visa', card_last4: '4242', customer_name: 'Ada Lovelace', processor_charge_id: expect.stringMatching(/^ch_sim_ok_/) });

    const events = await eventsOf(session.id);
    expect(events.map((e) => e.type)).toEqual(['checkout.succeeded']);
    expect(events[0].payload).toEqual({
      sessionId: session.id,
      amount: 4658,
      amountInDecimals: '46.58',
      currency: 'USD',
      customerEmail: 'buyer@example.com',
      customerName: 'Ada Lovelace',
      timestamp: read.body.data.completedAt,
      shipping: null,
    });
    const fanout = await sql(stack, `select 1 from outbox where message->>'kind' = 'event.fanout' and message->>'eventId' = ?`, [events[0].id]);
    expect(fanout).toHaveLength(1);

    const [reserve] = await sql(stack, 'select id, reserve_amount_in_cents::int as amount, status, release_at from reserves where payment_id = ?', [session.id]);
    expect(reserve).toMatchObject({ amount: 450, status: 'active' });
    const release = stack.temporal.workflow.getHandle(`reserve-release-${reserve.id}`);
    const described = await eventually(() => release.describe().catch(() => undefined));
    expect(described?.status.name).toBe('RUNNING');
    // Started with its first task at the release date: nothing of it runs beside the payment or during the hold.
    const history = (await release.fetchHistory()).events ?? [];
    expect(history.map((e) => e.eventType)).toEqual([WORKFLOW_EXECUTION_STARTED]);
    const backoffMs = tsToMs(history[0].workflowExecutionStartedEventAttributes!.firstWorkflowTaskBackoff);
    const startedAt = tsToDate(history[0].eventTime!).getTime();
    expect(Math.abs(startedAt + backoffMs - new Date(reserve.release_at).getTime())).toBeLessThan(60_000);

    const checkout = stack.temporal.workflow.getHandle(checkoutWorkflowId(session.id));
    const searchable = await eventually(async () => (await checkout.describe()).typedSearchAttributes.get(PaymentStatus) === 'completed');
    expect(searchable).toBe(true);
  });

  it('pays with any other Luhn-valid number', async () => {
    const session = await createSession(stack, biz.testKey);
    const res = await pay(stack, session.id, payBody(CARDS.otherValid));
    expect(res.body.data.status).toBe('completed');
    const [row] = await sql(stack, 'select card_brand, card_last4 from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ card_brand: 'mastercard', card_last4: '4444' });
  });

  it.each([
    [CARDS.declined, 'card_declined', 'Your card was declined.'],
    [CARDS.insufficientFunds, 'insufficient_funds', 'Your card has insufficient funds.'],
    [CARDS.expired, 'expired_card', 'Your card has expired.'],
    // Its fault persists; it fails only after the lookup finds no charge (below).
    [CARDS.processingError, 'processing_error', 'An error occurred while processing your card. Try again in a little bit.'],
  ])('fails %s as %s: no money moves, checkout.failed recorded, redirect to failureUrl', async (number, code, message) => {
    const session = await createSession(stack, biz.testKey);
    const res = await pay(stack, session.id, payBody(number));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sessionId: session.id, status: 'failed', redirectUrl: `https://shop.example/failed?session_id=${session.id}` });
    const [row] = await sql(stack, 'select status, failure_code, failure_message, completed_at from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ status: 'failed', failure_code: code, failure_message: message, completed_at: null });
    expect(await paymentPostings(stack, session.id)).toEqual({});
    expect(await sql(stack, 'select 1 from reserves where payment_id = ?', [session.id])).toHaveLength(0);
    const events = await eventsOf(session.id);
    expect(events.map((e) => e.type)).toEqual(['checkout.failed']);
    expect(events[0].payload).toEqual({
      sessionId: session.id,
      amount: 4658,
      currency: 'USD',
      customerEmail: 'buyer@example.com',
      failureCode: code,
      failureMessage: message,
      timestamp: expect.any(String),
    });
  });

  it('pays 4000000000005126 with a charge id that marks its later refund to fail', async () => {
    const session = await createSession(stack, biz.testKey);
    expect((await pay(stack, session.id, payBody(CARDS.refundDeclined))).body.data.status).toBe('completed');
    const [row] = await sql(stack, 'select processor_charge_id from checkout_sessions where id = ?', [session.id]);
    expect(row.processor_charge_id).toMatch(/^ch_sim_refund_declined_/);
  });

  it('answers redirectUrl null when the business gave no URL (the page shows its own receipt)', async () => {
    const session = await createSession(stack, biz.testKey, { urls: null });
    const res = await pay(stack, session.id);
    expect(res.body.data).toEqual({ sessionId: session.id, status: 'completed', redirectUrl: null });
  });

  it('keeps the card number out of the database and the workflow history', async () => {
    const session = await createSession(stack, biz.testKey);
    await pay(stack, session.id, payBody('4242 4242 4242 4242'));
    const rows = await sql(stack, 'select row_to_json(s)::text as json from checkout_sessions s where id = ?', [session.id]);
    const events = await eventsOf(session.id);
    const history = await stack.temporal.workflow.getHandle(checkoutWorkflowId(session.id)).fetchHistory();
    // Payloads are sealed in the history (the payload codec): open every one of them, as an operator can.
    const opened = await new EncryptionCodec(stack.config.temporal.encryptionKeys!).decode(encryptedPayloads(history).sealed);
    const payloads = opened.map((p) => Buffer.from(p.data ?? []).toString('utf8'));
    const everything = JSON.stringify([rows, events, plainText(history), payloads]);
    expect(everything).not.toContain('4242424242424242');
    expect(everything).not.toContain('"cvc"');
    expect(everything).toContain('tok_sim_success_');
  });

  it('stores the shipping address a session asks for and sends it in checkout.succeeded', async () => {
    const session = await createSession(stack, biz.testKey, { askShipping: true });
    const shipping = { addressLine1: '1 Main St', addressLine2: 'Apt 2', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'us' };
    const res = await pay(stack, session.id, payBody(CARDS.success, { shipping, email: 'ada@example.com' }));
    expect(res.body.data.status).toBe('completed');
    const [row] = await sql(stack, 'select shipping, customer_email from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ shipping: { ...shipping, country: 'US' }, customer_email: 'ada@example.com' });
    const [event] = await eventsOf(session.id);
    expect(event.payload.customerEmail).toBe('ada@example.com');
    expect(event.payload.shipping).toEqual({ addressLine1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' });
  });

  it('works at /api/v1 as well', async () => {
    const session = await createSession(stack, biz.testKey);
    expect((await pay(stack, session.id, payBody(), '/api/v1')).body.data.status).toBe('completed');
  });
});

/** Card 4000000000000408: every charge call times out, but the processor did charge it (once). */
const TIMEOUT_CHARGED = '4000000000000408';

const simulatorRecordOf = (sessionId: string) =>
  sql(stack, 'select status, charge_id, decline_code from simulator_charges where livemode = false and idempotency_key = ?', [sessionId]);

const ledgerPaymentsOf = (sessionId: string) => sql(stack, `select id from ledger_transactions where kind = 'payment' and reference_id = ?`, [sessionId]);

/**
 * The activities the session's checkout workflow ran, in order: those it scheduled, and its local
 * activities (the database steps), read from their markers, whose `data` names the activity type.
 */
async function scheduledActivities(sessionId: string): Promise<string[]> {
  const history = await stack.temporal.workflow.getHandle(checkoutWorkflowId(sessionId)).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    if (e.activityTaskScheduledEventAttributes) return [e.activityTaskScheduledEventAttributes.activityType!.name!];
    const marker = e.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0]?.data : undefined;
    return data ? [(JSON.parse(Buffer.from(data).toString()) as { activity_type: string }).activity_type] : [];
  });
}

describe('POST /api/checkout/:id/pay: a charge whose outcome is unknown', () => {
  it('pays 4000000000000408 (timed out, but charged): the lookup finds the charge, completed, charged once', async () => {
    const session = await createSession(stack, biz.testKey);
    const res = await pay(stack, session.id, payBody(TIMEOUT_CHARGED));
    // Four timed-out charge calls (3.5 s of backoff) and one lookup fit in the request's 10 s wait.
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sessionId: session.id, status: 'completed', redirectUrl: `https://shop.example/ok?order=1001&session_id=${session.id}` });

    const records = await simulatorRecordOf(session.id);
    expect(records).toEqual([{ status: 'succeeded', charge_id: expect.stringMatching(/^ch_sim_ok_[0-9a-f]{24}$/), decline_code: null }]);
    const [row] = await sql(stack, 'select status, processor_charge_id, failure_code, card_last4 from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ status: 'completed', processor_charge_id: records[0].charge_id, failure_code: null, card_last4: '0408' });
    expect(await ledgerPaymentsOf(session.id)).toHaveLength(1);
    expect(await paymentPostings(stack, session.id)).toEqual({ processor_clearing: -4658, fee_revenue: 160, reserved: 450, available: 4048 });
    expect((await eventsOf(session.id)).map((e) => e.type)).toEqual(['checkout.succeeded']);
    expect(await scheduledActivities(session.id)).toEqual(['beginPayment', 'chargeCard', 'lookUpCharge', 'completePayment']);
  });

  it('fails 4000000000000119 as processing_error only after the lookup finds no charge, and closes the key', async () => {
    const session = await createSession(stack, biz.testKey);
    const res = await pay(stack, session.id, payBody(CARDS.processingError));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sessionId: session.id, status: 'failed', redirectUrl: `https://shop.example/failed?session_id=${session.id}` });
    expect(await scheduledActivities(session.id)).toEqual(['beginPayment', 'chargeCard', 'lookUpCharge', 'failPayment']);
    // The lookup's answer is on the simulator's record, so no late charge can land under this session.
    expect(await simulatorRecordOf(session.id)).toEqual([{ status: 'not_found', charge_id: null, decline_code: null }]);
    expect(await ledgerPaymentsOf(session.id)).toHaveLength(0);
  });

  it("keeps the simulator's record in PostgreSQL: a new worker's simulator finds the charge; one outcome per key, even raced", async () => {
    const key = randomUUID();
    const before = simulatorWithBook(postgresChargeBook(stack.orm), createSimulatorProcessor());
    const { token } = await before.tokenize(parsedCard(TIMEOUT_CHARGED), false);
    await expect(before.charge({ token, amountInCents: 4658, currency: 'USD', idempotencyKey: key, livemode: false, reference: null })).rejects.toThrow(CHARGE_TIMEOUT_MESSAGE);
    // A fresh simulator object, as after a restart: nothing in memory, the record is in the database.
    const after = simulatorWithBook(postgresChargeBook(stack.orm), createSimulatorProcessor());
    expect(await after.retrieveCharge({ idempotencyKey: key, livemode: false, reference: null })).toEqual({ status: 'succeeded', chargeId: expect.stringMatching(/^ch_sim_ok_/) });
    expect(await after.retrieveCharge({ idempotencyKey: key, livemode: true, reference: null })).toEqual({ status: 'not_found' });

    const raced = randomUUID();
    const book = postgresChargeBook(stack.orm);
    const answers = await Promise.all([
      book.claim(raced, false, { status: 'succeeded', chargeId: 'ch_sim_ok_a' }),
      book.claim(raced, false, { status: 'not_found' }),
      book.claim(raced, false, { status: 'succeeded', chargeId: 'ch_sim_ok_b' }),
    ]);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(await sql(stack, 'select 1 from simulator_charges where idempotency_key = ?', [raced])).toHaveLength(1);
  });

  it('records each charge the processor answered, so a lookup can find it', async () => {
    const session = await createSession(stack, biz.testKey);
    expect((await pay(stack, session.id)).body.data.status).toBe('completed');
    const [row] = await sql(stack, 'select processor_charge_id from checkout_sessions where id = ?', [session.id]);
    expect(await simulatorRecordOf(session.id)).toEqual([{ status: 'succeeded', charge_id: row.processor_charge_id, decline_code: null }]);
    expect(await scheduledActivities(session.id)).toEqual(['beginPayment', 'chargeCard', 'completePayment']);
  });
});
