/**
 * Disputes as a merchant meets them, end to end on the real stack: a dispute test card pays, the
 * simulated acquirer's notice opens the dispute, the merchant answers through the API, and the
 * simulated network decides by the test phrases. Balance, reserves and balance transactions after each step.
 */

import { EvidenceDueBy, PaymentStatus } from '../../contracts/search-attributes.js';
import { createSession, eventually, payToCompletion, payBody, sql } from '../support/payments.js';
import {
  balance,
  balanceTransactions,
  DISPUTE_CARDS,
  disputeIn,
  disputeOfSession,
  expectLedgerVerified,
  expectTransactionsSumToBalance,
  FEE,
  TOTAL,
} from '../support/disputes.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { disputeWorkflowId } from '../../contracts/workflow-ids.js';

let receiver: Receiver;
const stack = useStack(async () => ({
  WEBHOOK_CA_FILE: (receiver = await startReceiver()).caFile,
  DISPUTE_NOTICE_DELAY: '300ms',
  DISPUTE_REVIEW_PERIOD: '1s',
}));
afterAll(() => receiver?.close());

// The demo business holds 10 % of the subtotal (450 of 4498) in a reserve; the rest of it is available.
const AVAILABLE_SHARE = 4048;
const RESERVE = 450;

async function payWith(biz: TestBusiness, card: string) {
  const session = await createSession(stack, biz.testKey);
  await payToCompletion(stack, session.id, payBody(card));
  return session.id as string;
}

const evidence = (biz: TestBusiness, id: string, body: unknown) => stack.http.post(`/api/disputes/${id}/evidence`, body, { key: biz.testKey });
const eventsOf = async (disputeId: string) =>
  (await sql<{ type: string; payload: any }>(stack, `select type, payload from events where payload->>'disputeId' = ? order by created_at, id`, [disputeId])).map((e) => e.type);

describe('the dispute test cards', () => {
  it('4000 0000 0000 0259 pays, then a fraudulent chargeback takes the amount and the fee: available, then the reserve, then owed', async () => {
    const biz = await stack.business();
    const sessionId = await payWith(biz, DISPUTE_CARDS.chargebackFraudulent);
    const dispute = await disputeOfSession(stack, biz, sessionId);
    expect(dispute).toMatchObject({
      checkoutSessionId: sessionId,
      amountInCents: TOTAL,
      feeInCents: FEE,
      currency: 'USD',
      reason: 'fraudulent',
      status: 'needs_response',
      submittedAt: null,
      closedAt: null,
      livemode: false,
      funding: { fromAvailableInCents: AVAILABLE_SHARE, fromReservesInCents: RESERVE, owedInCents: TOTAL + FEE - AVAILABLE_SHARE - RESERVE },
    });
    expect(dispute.id).toMatch(/^dsp_[0-9a-f]{32}$/);
    expect(Date.parse(dispute.evidenceDueBy) - Date.parse(dispute.createdAt)).toBe(7 * 24 * 3600 * 1000);
    expect(Object.values(dispute.evidence)).toEqual(Array(10).fill(null));

    expect(await balance(stack, biz.testKey)).toMatchObject({ availableInCents: AVAILABLE_SHARE - (TOTAL + FEE - RESERVE), reservedInCents: 0 });
    const [reserve] = (await stack.http.get('/api/reserves', { key: biz.testKey })).body.data.items;
    expect(reserve).toMatchObject({ paymentId: sessionId, status: 'consumed' });

    const session = await stack.http.get(`/api/checkout/sessions/${sessionId}`, { key: biz.testKey });
    expect(session.body.data).toMatchObject({ status: 'completed', disputeId: dispute.id });

    const items = (await balanceTransactions(stack, biz.testKey)).filter((t) => t.sourceId === dispute.id);
    const funding = [
      { from: 'available', amountInCents: AVAILABLE_SHARE },
      { from: reserve.id, amountInCents: RESERVE },
      { from: 'owed', amountInCents: TOTAL + FEE - AVAILABLE_SHARE - RESERVE },
    ];
    expect(items.map((t) => [t.type, t.balanceType, t.netInCents]).sort()).toEqual(
      [
        ['dispute', 'available', -(TOTAL - RESERVE)],
        ['dispute', 'reserved', -RESERVE],
        ['dispute_fee', 'available', -FEE],
      ].sort(),
    );
    for (const item of items.filter((t) => t.type === 'dispute')) expect(item.funding).toEqual(funding);
    expect(items.find((t) => t.type === 'dispute_fee').funding).toBeUndefined();
    await expectTransactionsSumToBalance(stack, biz.testKey);
    expect(await eventsOf(dispute.id)).toEqual(['dispute.created', 'dispute.funds_withdrawn']);

    const described = await stack.temporal.workflow.getHandle(disputeWorkflowId(dispute.id)).describe();
    expect(described.typedSearchAttributes.get(PaymentStatus)).toBe('needs_response');
    expect(described.typedSearchAttributes.get(EvidenceDueBy)?.toISOString()).toBe(dispute.evidenceDueBy);
    // The runbook's search: chargebacks due before a given time (visibility is eventually consistent).
    const dueBefore = async (days: number) => {
      const query = `WorkflowType="disputeWorkflow" AND PaymentStatus="needs_response" AND BusinessId="${biz.id}" AND EvidenceDueBy < "${new Date(Date.now() + days * 24 * 3600 * 1000).toISOString()}"`;
      const ids: string[] = [];
      for await (const run of stack.temporal.workflow.list({ query })) ids.push(run.workflowId);
      return ids;
    };
    await eventually('the dispute to be found by its deadline', async () => (await dueBefore(8)).includes(disputeWorkflowId(dispute.id)));
    expect(await dueBefore(6)).toEqual([]);
    await expectLedgerVerified(stack);
  });

  it('4000 0000 0000 2685 opens a product_not_received chargeback; winning_evidence wins it: the amount returns, the fee stays', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await payWith(biz, '4242424242424242'); // an earlier sale, so that this chargeback is covered by available
    const sessionId = await payWith(biz, DISPUTE_CARDS.chargebackNotReceived);
    const dispute = await disputeOfSession(stack, biz, sessionId);
    expect(dispute).toMatchObject({ reason: 'product_not_received', status: 'needs_response', funding: { fromAvailableInCents: TOTAL + FEE, fromReservesInCents: 0, owedInCents: 0 } });
    const before = await balance(stack, biz.testKey);

    const draft = await evidence(biz, dispute.id, { shippingCarrier: 'UPS', uncategorizedText: 'draft' });
    expect(draft.status).toBe(200);
    expect(draft.body.data).toMatchObject({ status: 'needs_response', submittedAt: null, evidence: { shippingCarrier: 'UPS', uncategorizedText: 'draft', customerName: null } });
    const submitted = await evidence(biz, dispute.id, { uncategorizedText: 'winning_evidence', submit: true });
    expect(submitted.body.data).toMatchObject({ status: 'under_review', evidence: { shippingCarrier: 'UPS', uncategorizedText: 'winning_evidence' } });
    expect(submitted.body.data.submittedAt).not.toBeNull();
    // Refused once submitted: under review, or already won if the 1 s review outran this request on a busy machine.
    const late = await evidence(biz, dispute.id, { customerName: 'Ada' });
    expect([late.status, late.body.error]).toEqual([
      400,
      expect.objectContaining({ type: 'validation_error', message: expect.stringMatching(/^Cannot submit evidence for a dispute in (under_review|won) status$/) }),
    ]);

    const won = await disputeIn(stack, biz, dispute.id, ['won', 'lost']);
    expect(won).toMatchObject({ status: 'won', closedAt: expect.any(String) });
    expect(Date.parse(won.closedAt) - Date.parse(won.submittedAt)).toBeGreaterThanOrEqual(1000);
    expect((await balance(stack, biz.testKey)).availableInCents).toBe(before.availableInCents + TOTAL);
    const reversal = (await balanceTransactions(stack, biz.testKey)).filter((t) => t.type === 'dispute_reversal');
    expect(reversal).toEqual([expect.objectContaining({ sourceId: dispute.id, balanceType: 'available', netInCents: TOTAL, amountInCents: TOTAL })]);
    expect(await eventsOf(dispute.id)).toEqual(['dispute.created', 'dispute.funds_withdrawn', 'dispute.updated', 'dispute.updated', 'dispute.funds_reinstated', 'dispute.closed']);

    // Won: the session may be refunded after all.
    const refund = await stack.http.post('/api/refunds', { checkoutSessionId: sessionId }, { key: biz.testKey });
    expect(refund.status).toBe(201);
    await expectTransactionsSumToBalance(stack, biz.testKey);
    await expectLedgerVerified(stack);
  });

  it('losing_evidence loses a chargeback, after which the session cannot be refunded', async () => {
    const biz = await stack.business();
    const sessionId = await payWith(biz, DISPUTE_CARDS.chargebackFraudulent);
    const dispute = await disputeOfSession(stack, biz, sessionId);
    const refused = await stack.http.post('/api/refunds', { checkoutSessionId: sessionId }, { key: biz.testKey });
    expect([refused.status, refused.body.error.message]).toEqual([400, 'Cannot refund a checkout session whose dispute is needs_response']);

    await evidence(biz, dispute.id, { productDescription: 'losing_evidence', submit: true });
    const lost = await disputeIn(stack, biz, dispute.id, ['won', 'lost']);
    expect(lost.status).toBe('lost');
    const after = await stack.http.post('/api/refunds', { checkoutSessionId: sessionId }, { key: biz.testKey });
    expect([after.status, after.body.error]).toEqual([400, expect.objectContaining({ type: 'validation_error', message: 'Cannot refund a checkout session whose dispute is lost' })]);
    expect((await balanceTransactions(stack, biz.testKey)).some((t) => t.type === 'dispute_reversal')).toBe(false);
    await expectLedgerVerified(stack);
  });

  it('4000 0000 0000 1976 opens a fraudulent inquiry, which moves no money; winning evidence closes it', async () => {
    const biz = await stack.business();
    await payWith(biz, '4242424242424242'); // an earlier sale: a refund returns the whole total, fees included
    const sessionId = await payWith(biz, DISPUTE_CARDS.inquiryFraudulent);
    const before = await balance(stack, biz.testKey);
    const inquiry = await disputeOfSession(stack, biz, sessionId);
    expect(inquiry).toMatchObject({ reason: 'fraudulent', status: 'warning_needs_response', funding: null, feeInCents: FEE });
    expect(await balance(stack, biz.testKey)).toEqual(before);
    expect((await balanceTransactions(stack, biz.testKey)).filter((t) => t.sourceId === inquiry.id)).toEqual([]);

    const submitted = await evidence(biz, inquiry.id, { uncategorizedText: 'winning_evidence', submit: true });
    expect(submitted.body.data.status).toBe('warning_under_review');
    expect((await disputeIn(stack, biz, inquiry.id, ['warning_closed', 'needs_response'])).status).toBe('warning_closed');
    expect(await balance(stack, biz.testKey)).toEqual(before);
    // An inquiry closed: the session may be refunded.
    expect((await stack.http.post('/api/refunds', { checkoutSessionId: sessionId }, { key: biz.testKey })).status).toBe(201);
  });

  it('an inquiry whose evidence loses escalates to a chargeback with a fresh window, and its funds are withdrawn then', async () => {
    const biz = await stack.business();
    const sessionId = await payWith(biz, DISPUTE_CARDS.inquiryFraudulent);
    const inquiry = await disputeOfSession(stack, biz, sessionId);
    await evidence(biz, inquiry.id, { uncategorizedText: 'losing_evidence', submit: true });
    const escalated = await disputeIn(stack, biz, inquiry.id, ['needs_response', 'warning_closed']);
    expect(escalated).toMatchObject({ status: 'needs_response', submittedAt: null, closedAt: null, funding: { fromAvailableInCents: AVAILABLE_SHARE, fromReservesInCents: RESERVE } });
    expect(Date.parse(escalated.evidenceDueBy)).toBeGreaterThan(Date.parse(inquiry.evidenceDueBy));
    expect(await balance(stack, biz.testKey)).toMatchObject({ availableInCents: AVAILABLE_SHARE - (TOTAL + FEE - RESERVE), reservedInCents: 0 });
    expect(await eventsOf(inquiry.id)).toEqual(['dispute.created', 'dispute.updated', 'dispute.updated', 'dispute.funds_withdrawn']);

    // The chargeback takes evidence again, and this time the merchant accepts it.
    const closed = await stack.http.post(`/api/disputes/${inquiry.id}/close`, undefined, { key: biz.testKey });
    expect(closed.body.data).toMatchObject({ status: 'lost', closedAt: expect.any(String) });
    await expectTransactionsSumToBalance(stack, biz.testKey);
    await expectLedgerVerified(stack);
  });

  it('delivers the dispute.* events to endpoints subscribed by name or by *, with the payload the document gives', async () => {
    const biz = await stack.business();
    const byName = receiver.url();
    const byWildcard = receiver.url();
    const other = receiver.url();
    for (const [url, events] of [[byName, ['dispute.created', 'dispute.closed']], [byWildcard, ['*']], [other, ['refund.created']]] as const) {
      expect((await stack.http.post('/api/webhooks', { url, events }, { key: biz.testKey })).status).toBe(201);
    }
    const sessionId = await payWith(biz, DISPUTE_CARDS.chargebackFraudulent);
    const dispute = await disputeOfSession(stack, biz, sessionId);
    await stack.http.post(`/api/disputes/${dispute.id}/close`, undefined, { key: biz.testKey });
    const typesAt = (url: string) => receiver.at(url).map((r) => JSON.parse(r.rawBody.toString()).type).sort();
    await eventually('the deliveries', () => typesAt(byWildcard).length === 4 && typesAt(byName).length === 2);
    expect(typesAt(byName)).toEqual(['dispute.closed', 'dispute.created']);
    expect(typesAt(byWildcard)).toEqual(['checkout.succeeded', 'dispute.closed', 'dispute.created', 'dispute.funds_withdrawn']);
    expect(typesAt(other)).toEqual([]);
    const closed = receiver.at(byName).map((r) => JSON.parse(r.rawBody.toString())).find((e) => e.type === 'dispute.closed');
    expect(closed.payload).toEqual({
      disputeId: dispute.id,
      checkoutSessionId: sessionId,
      status: 'lost',
      reason: 'fraudulent',
      amountInCents: TOTAL,
      evidenceDueBy: dispute.evidenceDueBy,
    });
  });
});
