/**
 * Stripe's dispute events at the acquirer endpoint, shaped like Stripe's own (stripe-mock's event and
 * dispute fixtures) and signed with the `stripe` library's test-header helper: a good signature, a bad one,
 * a replay, an event for a charge this service never made, and the five `charge.dispute.*` events in any
 * order, feeding the same dispute workflow the simulator feeds. A dispute's later states are Stripe's to
 * send, so each event carries the state the test needs (recorded Stripe responses: the mock's fixture,
 * given that state). The merchant's evidence goes back to Stripe through the mock, which must accept it.
 */
import { jest } from '@jest/globals';
import { registry } from '../../src/ops/metrics.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { receiveStripeEvent } from '../../src/modules/stripe/stripe-events.service.js';
import { eventually, sql } from '../support/payments.js';
import { balance, openDispute } from '../support/disputes.js';
import { disputeEvent } from './stripe-events.js';
import { useStripeStack } from './stripe-stack.js';

jest.setTimeout(120_000);

const { stack, biz, stripe, livePayment, postEvent } = useStripeStack();

let disputes = 0;
const newDisputeId = () => `du_test${Date.now()}x${++disputes}`;
const eventRow = async (id: string) => (await sql(stack, 'select outcome, detail, dispute_id from acquirer_events where id = ?', [id]))[0];
const disputeOf = async (id: string) => (await stack.http.get(`/api/disputes/${id}`, { key: biz.liveKey })).body.data;
const ledgerClean = async () => expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
const alerts = async (outcome: string) => {
  const metric = await registry.getSingleMetric('acquirer_events_total')!.get();
  return metric.values.filter((v) => v.labels.outcome === outcome).reduce((sum, v) => sum + v.value, 0);
};

const unverified = async (reason: string) => {
  const metric = await registry.getSingleMetric('acquirer_events_unverified_total')?.get();
  return metric?.values.find((v) => v.labels.reason === reason)?.value ?? 0;
};

describe("Stripe's signature", () => {
  it('applies an event with a good signature: charge.dispute.created opens the chargeback and takes its money at once', async () => {
    const paid = await livePayment();
    const before = await balance(stack, biz.liveKey);
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: paid.intent, status: 'needs_response', amount: paid.total });
    const res = await postEvent(event);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { eventId: event.id, outcome: 'applied', disputeId: expect.stringMatching(/^dsp_/) } });
    expect(await disputeOf(res.body.data.disputeId)).toMatchObject({ status: 'needs_response', checkoutSessionId: paid.sessionId });
    expect(await eventRow(event.id)).toMatchObject({ outcome: 'applied', dispute_id: res.body.data.disputeId });
    const after = await balance(stack, biz.liveKey);
    expect(before.availableInCents + before.reservedInCents - (after.availableInCents + after.reservedInCents)).toBe(paid.total + 1500);
    await ledgerClean();
  });

  it.each([
    ['signed with another secret', { secret: 'whsec_someone_else' }, 'signature_mismatch'],
    ['with no Stripe-Signature', { signature: null }, 'no_signature'],
    ['with a signature that is not one', { signature: 't=1,v1=abc' }, 'signature_mismatch'],
    ['with a header that has no signature in it', { signature: 't=1' }, 'malformed_signature'],
  ])('refuses an event %s: 400, nothing is recorded, and it is counted by its reason', async (_, opts, reason) => {
    const paid = await livePayment();
    const before = await unverified(reason);
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: paid.intent, status: 'needs_response', amount: paid.total });
    const res = await postEvent(event, opts);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'The event does not verify against its Stripe-Signature header' });
    expect(await eventRow(event.id)).toBeUndefined();
    expect(await sql(stack, 'select id from disputes where checkout_session_id = ?', [paid.sessionId])).toEqual([]);
    expect(await unverified(reason)).toBe(before + 1);
  });

  it.each([
    ['an old delivery sent again (its signed timestamp more than 300 s ago)', -301, 'timestamp_too_old'],
    ['a delivery dated ahead (its signed timestamp more than 300 s from now)', 301, 'timestamp_in_future'],
    ['a delivery dated a day ahead', 86_400, 'timestamp_in_future'],
  ])('refuses %s: 400, nothing recorded, counted by its reason', async (_, offset, reason) => {
    const paid = await livePayment();
    const before = await unverified(reason);
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: paid.intent, status: 'needs_response', amount: paid.total });
    const res = await postEvent(event, { timestamp: Math.floor(Date.now() / 1000) + offset });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'The event does not verify against its Stripe-Signature header' });
    expect(await eventRow(event.id)).toBeUndefined();
    expect(await unverified(reason)).toBe(before + 1);
  });

  it('takes a replayed event once: the second delivery is acknowledged and moves nothing', async () => {
    const paid = await livePayment();
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: paid.intent, status: 'needs_response', amount: paid.total });
    expect((await postEvent(event)).body.data.outcome).toBe('applied');
    const before = await balance(stack, biz.liveKey);
    const again = await postEvent(event);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ outcome: 'duplicate', disputeId: null });
    expect(await balance(stack, biz.liveKey)).toEqual(before);
    expect(await sql(stack, 'select count(*)::int as n from acquirer_events where id = ?', [event.id])).toEqual([{ n: 1 }]);
    expect(await sql(stack, 'select count(*)::int as n from disputes where checkout_session_id = ?', [paid.sessionId])).toEqual([{ n: 1 }]);
  });
});

describe('an event this service cannot apply', () => {
  it.each([
    ['a PaymentIntent it never made', 'pi_never_ours'],
    ['no PaymentIntent at all', null],
  ])('records and alerts a dispute of %s, and acknowledges it', async (_, intent) => {
    const before = await alerts('unmatched');
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: intent, status: 'needs_response', amount: 1000 });
    const res = await postEvent(event);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ outcome: 'unmatched', disputeId: null });
    expect(await eventRow(event.id)).toMatchObject({ outcome: 'unmatched', detail: expect.stringMatching(/which no payment of this service made$/) });
    expect(await alerts('unmatched')).toBe(before + 1);
  });

  it('counts an event only once its transaction commits: one rolled back (Stripe sends it again) is neither counted nor recorded', async () => {
    const before = await alerts('unmatched');
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: 'pi_never_ours', status: 'needs_response', amount: 1000 });
    const lost = new Error('the database went away before the commit');
    const applied = stack.orm.em.fork().transactional(async (tx) => {
      expect((await receiveStripeEvent(tx, event, { disputes: stack.config.disputes })).outcome).toBe('unmatched');
      throw lost;
    });
    await expect(applied).rejects.toBe(lost);
    expect(await eventRow(event.id)).toBeUndefined();
    expect(await alerts('unmatched')).toBe(before);
    expect((await postEvent(event)).body.data).toMatchObject({ outcome: 'unmatched' });
    expect(await alerts('unmatched')).toBe(before + 1);
  });

  it('records and alerts a dispute of a refunded payment (the acquirer would reverse it), moving nothing', async () => {
    const paid = await livePayment();
    await livePayment(); // covers the refund's fee-inclusive total
    const refund = await stack.http.post('/api/refunds', { checkoutSessionId: paid.sessionId }, { key: biz.liveKey });
    expect(refund.status).toBe(201);
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: paid.intent, status: 'needs_response', amount: paid.total });
    const res = await postEvent(event);
    expect(res.body.data.outcome).toBe('refused');
    expect(await eventRow(event.id)).toMatchObject({ outcome: 'refused', detail: expect.stringContaining('dispute_session_refunded') });
    await ledgerClean();
  });

  it('records an event type it does not take, and does nothing with it', async () => {
    const event = { ...(await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: null, status: 'needs_response', amount: 1 })), type: 'charge.refunded' };
    expect((await postEvent(event)).body.data.outcome).toBe('ignored');
  });

  it.each([
    ['an amount that is not a number', (event: any) => (event.data.object.amount = '10.00')],
    ['text the database cannot store', (event: any) => (event.data.object.reason = 'fraud\u0000ulent')],
    ['no created time', (event: any) => delete event.created],
  ])('answers a signed event with %s 400 validation_error, recording nothing', async (_, spoil) => {
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: null, status: 'needs_response', amount: 100 });
    spoil(event);
    const res = await postEvent(event);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', errors: [expect.objectContaining({ path: expect.any(Array) })] });
    expect(await eventRow(event.id)).toBeUndefined();
  });

  it('answers a signed event whose evidence is due past the year 9999 400 validation_error, opening nothing', async () => {
    const paid = await livePayment();
    const event = await disputeEvent('charge.dispute.created', { id: newDisputeId(), paymentIntent: paid.intent, status: 'needs_response', amount: paid.total });
    (event.data.object as any).evidence_details.due_by = 2 ** 40;
    const res = await postEvent(event);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', errors: [expect.objectContaining({ path: ['evidence_details', 'due_by'] })] });
    expect(await eventRow(event.id)).toBeUndefined();
    expect(await sql(stack, 'select id from disputes where checkout_session_id = ?', [paid.sessionId])).toEqual([]);
  });

  it('answers another method on the endpoint 405 with Allow', async () => {
    const res = await stack.http.get('/acquirer/stripe/webhook', { offDocument: true });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toMatch(/POST/);
  });
});

describe('the dispute events in any order', () => {
  it('closed (won) before created: the dispute opens, is won and its amount returns; created and funds_withdrawn after it change nothing', async () => {
    const paid = await livePayment();
    const id = newDisputeId();
    const dispute = { id, paymentIntent: paid.intent, amount: paid.total };
    const before = await balance(stack, biz.liveKey);
    const closed = await postEvent(await disputeEvent('charge.dispute.closed', { ...dispute, status: 'won' }));
    expect(closed.body.data.outcome).toBe('applied');
    expect(await disputeOf(closed.body.data.disputeId)).toMatchObject({ status: 'won' });
    for (const type of ['charge.dispute.created', 'charge.dispute.funds_withdrawn', 'charge.dispute.funds_reinstated'] as const) {
      const late = await postEvent(await disputeEvent(type, { ...dispute, status: type === 'charge.dispute.created' ? 'needs_response' : 'won' }));
      expect(late.body.data).toMatchObject({ outcome: 'unchanged', disputeId: closed.body.data.disputeId });
    }
    // Won: the amount came back; the dispute fee stays charged.
    const after = await balance(stack, biz.liveKey);
    expect(before.availableInCents + before.reservedInCents - (after.availableInCents + after.reservedInCents)).toBe(1500);
    await ledgerClean();
  });

  it('an inquiry escalates on funds_withdrawn, an older updated is ignored, and closed (lost) ends it lost', async () => {
    const paid = await livePayment();
    const dispute = { id: newDisputeId(), paymentIntent: paid.intent, amount: paid.total };
    const opened = await postEvent(await disputeEvent('charge.dispute.created', { ...dispute, status: 'warning_needs_response' }));
    const ours = opened.body.data.disputeId;
    expect(await disputeOf(ours)).toMatchObject({ status: 'warning_needs_response' });
    await postEvent(await disputeEvent('charge.dispute.funds_withdrawn', { ...dispute, status: 'needs_response' }));
    const chargeback = await disputeOf(ours);
    expect(chargeback).toMatchObject({ status: 'needs_response' });
    // The inquiry's own deadline, an hour off the chargeback's: a report behind the dispute moves none of it.
    const older = { ...dispute, status: 'warning_under_review', dueBy: new Date(Date.parse(chargeback.evidenceDueBy) - 3_600_000) };
    expect((await postEvent(await disputeEvent('charge.dispute.updated', older))).body.data.outcome).toBe('unchanged');
    expect(await disputeOf(ours)).toEqual(chargeback);
    await postEvent(await disputeEvent('charge.dispute.closed', { ...dispute, status: 'lost' }));
    expect(await disputeOf(ours)).toMatchObject({ status: 'lost' });
    await ledgerClean();
  });

  it("records and alerts Stripe closing a dispute otherwise than it closed here (accepted here, won at Stripe), moving nothing", async () => {
    const paid = await livePayment();
    const dispute = { id: newDisputeId(), paymentIntent: paid.intent, amount: paid.total };
    const ours = (await postEvent(await disputeEvent('charge.dispute.created', { ...dispute, status: 'needs_response' }))).body.data.disputeId;
    expect((await stack.http.post(`/api/disputes/${ours}/close`, {}, { key: biz.liveKey })).body.data.status).toBe('lost');
    const before = await balance(stack, biz.liveKey);
    const alerted = await alerts('disagrees');
    const res = await postEvent(await disputeEvent('charge.dispute.closed', { ...dispute, status: 'won' }));
    expect(res.body.data).toMatchObject({ outcome: 'disagrees', disputeId: ours });
    expect(await alerts('disagrees')).toBe(alerted + 1);
    expect(await balance(stack, biz.liveKey)).toEqual(before);
    expect((await postEvent(await disputeEvent('charge.dispute.closed', { ...dispute, status: 'lost' }))).body.data.outcome).toBe('unchanged');
  });

  it('two events of one dispute delivered at once open it once', async () => {
    for (let i = 0; i < 3; i++) {
      const paid = await livePayment();
      const dispute = { id: newDisputeId(), paymentIntent: paid.intent, amount: paid.total, status: 'needs_response' };
      const answers = await Promise.all([
        postEvent(await disputeEvent('charge.dispute.created', dispute)),
        postEvent(await disputeEvent('charge.dispute.funds_withdrawn', dispute)),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers.map((a) => a.body.data.outcome).sort()).toEqual(['applied', 'unchanged']);
      expect(new Set(answers.map((a) => a.body.data.disputeId)).size).toBe(1);
    }
    await ledgerClean();
  });

  it("a chargeback's deadline moved at Stripe moves here, and the merchant is told (dispute.updated); the same deadline again is unchanged", async () => {
    const paid = await livePayment();
    const dispute = { id: newDisputeId(), paymentIntent: paid.intent, amount: paid.total, status: 'needs_response' };
    const ours = (await postEvent(await disputeEvent('charge.dispute.created', dispute))).body.data.disputeId;
    const later = new Date(Date.parse((await disputeOf(ours)).evidenceDueBy) + 86_400_000);
    const moved = await postEvent(await disputeEvent('charge.dispute.updated', { ...dispute, dueBy: later }));
    expect(moved.body.data).toMatchObject({ outcome: 'applied', disputeId: ours });
    expect(await disputeOf(ours)).toMatchObject({ status: 'needs_response', evidenceDueBy: later.toISOString() });
    const told = await sql<{ type: string }>(stack, `select type from events where payload->>'disputeId' = ? order by created_at, id`, [ours]);
    expect(told.map((e) => e.type)).toEqual(['dispute.created', 'dispute.funds_withdrawn', 'dispute.updated']);
    expect((await postEvent(await disputeEvent('charge.dispute.updated', { ...dispute, dueBy: later }))).body.data.outcome).toBe('unchanged');
  });

  it("adopts a chargeback an operator entered before Stripe's events came, taking Stripe's deadline from its first report even one that calls it an inquiry", async () => {
    const paid = await livePayment();
    const entered = (await openDispute(stack, paid.sessionId, { reason: 'fraudulent' })).dispute;
    const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);
    const stripes = seconds(entered.evidenceDueBy.getTime() + 2 * 86_400_000);
    const dispute = { id: newDisputeId(), paymentIntent: paid.intent, amount: paid.total };
    const first = await postEvent(await disputeEvent('charge.dispute.created', { ...dispute, status: 'warning_needs_response', dueBy: stripes }));
    expect(first.body.data).toMatchObject({ outcome: 'applied', disputeId: entered.id });
    expect(await disputeOf(entered.id)).toMatchObject({ status: 'needs_response', evidenceDueBy: stripes.toISOString() });
    // From then on an inquiry's report is behind the chargeback here, as for any dispute Stripe opened.
    const later = { ...dispute, status: 'warning_under_review', dueBy: seconds(stripes.getTime() + 3_600_000) };
    expect((await postEvent(await disputeEvent('charge.dispute.updated', later))).body.data.outcome).toBe('unchanged');
    expect(await disputeOf(entered.id)).toMatchObject({ evidenceDueBy: stripes.toISOString() });
    await ledgerClean();
  });

  it('an inquiry closed at Stripe (warning_closed) closes here, moving no money', async () => {
    const paid = await livePayment();
    const dispute = { id: newDisputeId(), paymentIntent: paid.intent, amount: paid.total };
    const ours = (await postEvent(await disputeEvent('charge.dispute.created', { ...dispute, status: 'warning_needs_response' }))).body.data.disputeId;
    const before = await balance(stack, biz.liveKey);
    await postEvent(await disputeEvent('charge.dispute.closed', { ...dispute, status: 'warning_closed' }));
    expect(await disputeOf(ours)).toMatchObject({ status: 'warning_closed' });
    expect(await balance(stack, biz.liveKey)).toEqual(before);
  });
});

describe("the merchant's evidence, to Stripe", () => {
  it('goes with disputes.update (submit: true), field by field, once the merchant submits it', async () => {
    const paid = await livePayment();
    const du = newDisputeId();
    const ours = (await postEvent(await disputeEvent('charge.dispute.created', { id: du, paymentIntent: paid.intent, status: 'needs_response', amount: paid.total }))).body.data.disputeId;
    const evidence = {
      productDescription: 'House blend coffee, 1 kg',
      customerEmail: 'ada@example.com',
      customerCommunication: 'The customer confirmed delivery by e-mail.',
      refundPolicy: 'Refunds within 30 days, shown at checkout.',
      shippingTrackingNumber: '1Z999AA10123456784',
      uncategorizedText: 'Order 1001.',
      submit: true,
    };
    const res = await stack.http.post(`/api/disputes/${ours}/evidence`, evidence, { key: biz.liveKey });
    expect(res.status).toBe(200);
    const sent = await eventually('the evidence to reach Stripe', () => stripe().requests.find((r) => r.method === 'POST' && r.path === `/v1/disputes/${du}`), 60_000);
    expect(Object.fromEntries(sent.params)).toEqual({
      submit: 'true',
      'evidence[product_description]': 'House blend coffee, 1 kg',
      'evidence[customer_email_address]': 'ada@example.com',
      'evidence[refund_policy_disclosure]': 'Refunds within 30 days, shown at checkout.',
      'evidence[shipping_tracking_number]': '1Z999AA10123456784',
      'evidence[uncategorized_text]': 'Order 1001.\n\nCustomer communication:\nThe customer confirmed delivery by e-mail.',
    });
    expect(sent.idempotencyKey).toMatch(new RegExp(`^${ours}-evidence-\\d+$`));
    // Under review: Stripe decides, not the simulated network's phrases or clock.
    expect(await disputeOf(ours)).toMatchObject({ status: 'under_review' });
  });

  it('tells Stripe the merchant accepts the dispute (disputes.close) when it is closed through the API', async () => {
    const paid = await livePayment();
    const du = newDisputeId();
    const ours = (await postEvent(await disputeEvent('charge.dispute.created', { id: du, paymentIntent: paid.intent, status: 'needs_response', amount: paid.total }))).body.data.disputeId;
    const res = await stack.http.post(`/api/disputes/${ours}/close`, {}, { key: biz.liveKey });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('lost');
    const sent = await eventually('the acceptance to reach Stripe', () => stripe().requests.find((r) => r.method === 'POST' && r.path === `/v1/disputes/${du}/close`), 60_000);
    expect(sent.idempotencyKey).toBe(`${ours}-accept`);
  });
});
