/**
 * The merchant's evidence for a dispute at Stripe, within what Stripe takes: refused at the API, field by
 * field, where Stripe's API description caps a field below the API's 20,000 characters (stripe-mock does
 * not check lengths, so nothing here would catch it later); and a refusal that happens anyway (a recorded
 * Stripe answer) leaves the dispute needing a response, with Stripe's reason on it and the merchant told.
 */
import { jest } from '@jest/globals';
import { eventually, sql } from '../support/payments.js';
import { disputeEvent } from './stripe-events.js';
import { invalidRequest } from './recorded.js';
import { useStripeStack } from './stripe-stack.js';

jest.setTimeout(120_000);

const { stack, biz, stripe, livePayment, postEvent } = useStripeStack();

let disputes = 0;
const newDisputeId = () => `du_test${Date.now()}e${++disputes}`;
const disputeOf = async (id: string) => (await stack.http.get(`/api/disputes/${id}`, { key: biz.liveKey })).body.data;
const submit = (id: string, body: Record<string, unknown>) => stack.http.post(`/api/disputes/${id}/evidence`, body, { key: biz.liveKey });

/** A chargeback at Stripe, opened here by its `charge.dispute.created`. */
async function stripeDispute(): Promise<{ du: string; ours: string }> {
  const paid = await livePayment();
  const du = newDisputeId();
  const res = await postEvent(await disputeEvent('charge.dispute.created', { id: du, paymentIntent: paid.intent, status: 'needs_response', amount: paid.total }));
  return { du, ours: res.body.data.disputeId };
}

describe('evidence Stripe would refuse', () => {
  it("is 400 validation_error, each field past Stripe's limit named, and nothing saved or sent", async () => {
    const { du, ours } = await stripeDispute();
    const res = await submit(ours, { customerName: 'x'.repeat(5_001), shippingCarrier: 'UPS', uncategorizedText: 'y'.repeat(12_000), customerCommunication: 'z'.repeat(8_000), submit: true });
    expect(res.status).toBe(400);
    const together = 'uncategorizedText and customerCommunication together must be at most 20000 characters for a dispute at Stripe, which takes them as one field (20026 with its heading)';
    expect(res.body.error).toMatchObject({
      type: 'validation_error',
      message: 'Validation failed',
      errors: [
        { path: ['customerName'], message: 'customerName must be at most 5000 characters for a dispute at Stripe' },
        { path: ['uncategorizedText'], message: together },
        { path: ['customerCommunication'], message: together },
      ],
    });
    expect(await disputeOf(ours)).toMatchObject({ status: 'needs_response', submittedAt: null, evidence: expect.objectContaining({ customerName: null, shippingCarrier: null }) });
    expect(stripe().requests.filter((r) => r.path === `/v1/disputes/${du}`)).toEqual([]);
  });

  it('is refused in a draft too, so the merchant learns it before submitting; at the limits it is taken', async () => {
    const { ours } = await stripeDispute();
    expect((await submit(ours, { shippingTrackingNumber: '1'.repeat(5_001) })).status).toBe(400);
    const fits = await submit(ours, { shippingTrackingNumber: '1'.repeat(5_000), customerName: 'x'.repeat(5_000) });
    expect(fits.status).toBe(200);
    expect(fits.body.data.evidence.customerName).toHaveLength(5_000);
  });
});

describe('evidence Stripe refuses anyway', () => {
  it('leaves the dispute needs_response, with the reason on it and dispute.updated, and it may be submitted again', async () => {
    const { du, ours } = await stripeDispute();
    stripe().answer('POST', new RegExp(`^/v1/disputes/${du}$`), invalidRequest('parameter_invalid_string_blank', 'The evidence could not be submitted: the shipping date is not a date.'));
    expect((await submit(ours, { shippingDate: 'last Tuesday', submit: true })).body.data.status).toBe('under_review');
    const refused = await eventually('the refusal to reach the dispute', async () => {
      const d = await disputeOf(ours);
      return d.status === 'needs_response' ? d : null;
    }, 60_000);
    expect(refused).toMatchObject({
      status: 'needs_response',
      submittedAt: null,
      evidenceRefusal: `Stripe refused the evidence for ${du}: The evidence could not be submitted: the shipping date is not a date.`,
      evidence: expect.objectContaining({ shippingDate: 'last Tuesday' }),
    });
    const events = await sql(stack, `select type, payload->>'status' as status from events where payload->>'disputeId' = ? order by created_at, id`, [ours]);
    expect(events.map((e: any) => `${e.type} ${e.status}`)).toEqual(['dispute.created needs_response', 'dispute.funds_withdrawn needs_response', 'dispute.updated under_review', 'dispute.updated needs_response']);

    // Corrected and sent again: under review, the refusal cleared, and the new evidence reaches Stripe.
    stripe().reset();
    const again = await submit(ours, { shippingDate: '2026-11-20', submit: true });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'under_review', evidenceRefusal: null });
    const sent = await eventually('the corrected evidence to reach Stripe', () => stripe().requests.find((r) => r.path === `/v1/disputes/${du}`), 60_000);
    expect(sent.params.get('evidence[shipping_date]')).toBe('2026-11-20');
  });
});
