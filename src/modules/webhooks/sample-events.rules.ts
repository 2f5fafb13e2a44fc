import type { EventType } from '../events/index.js';

/** The status a real event of each dispute type most often carries. */
const DISPUTE_SAMPLE_STATUS = {
  'dispute.created': 'needs_response',
  'dispute.updated': 'under_review',
  'dispute.evidence_due_soon': 'needs_response',
  'dispute.funds_withdrawn': 'needs_response',
  'dispute.funds_reinstated': 'won',
  'dispute.closed': 'won',
} as const;

/**
 * The payload a test ping of each type carries (`POST /api/webhooks/:id/test` with `eventType`): the
 * shape a real event of that type has, with made-up values, so a receiver can try its handler on it.
 */
export function samplePayload(type: EventType, endpoint: { id: string; url: string }, at: Date): Record<string, unknown> {
  const timestamp = at.toISOString();
  const sessionId = '00000000-0000-4000-8000-000000000000';
  const refund = { refundId: 'ref_00000000000000000000000000000000', sessionId, amount: 4658, reason: 'requested_by_customer', timestamp };
  const withdrawal = { withdrawalId: 'wd_00000000000000000000000000000000', amount: 4000, amountInDecimals: '40.00', currency: 'USD', destinationType: 'wallet' };
  switch (type) {
    case 'webhook.test':
      return { endpointId: endpoint.id, message: 'A test event: your endpoint received and can verify it.', timestamp };
    case 'checkout.succeeded':
      return {
        sessionId,
        amount: 4658,
        amountInDecimals: '46.58',
        currency: 'USD',
        customerEmail: 'buyer@example.com',
        customerName: 'Test Buyer',
        timestamp,
        shipping: null,
      };
    case 'checkout.failed':
      return { sessionId, amount: 4658, currency: 'USD', customerEmail: 'buyer@example.com', failureCode: 'card_declined', failureMessage: 'Your card was declined', timestamp };
    case 'refund.created':
      return { ...refund, status: 'pending' };
    case 'refund.completed':
      return { ...refund, status: 'completed', processorRefundId: 're_sample' };
    case 'refund.failed':
      return { ...refund, status: 'failed', failureReason: 'The processor declined the refund' };
    case 'withdrawal.paid':
      return { ...withdrawal, status: 'completed', processorTransactionId: 'tx_sample', timestamp };
    case 'withdrawal.failed':
      return { ...withdrawal, status: 'failed', failureReason: 'The wallet cannot receive funds', timestamp };
    case 'dispute.created':
    case 'dispute.updated':
    case 'dispute.evidence_due_soon':
    case 'dispute.funds_withdrawn':
    case 'dispute.funds_reinstated':
    case 'dispute.closed':
      return {
        disputeId: 'dsp_00000000000000000000000000000000',
        checkoutSessionId: sessionId,
        status: DISPUTE_SAMPLE_STATUS[type],
        reason: 'fraudulent',
        amountInCents: 4658,
        evidenceDueBy: new Date(at.getTime() + 7 * 24 * 3600 * 1000).toISOString(),
      };
    case 'webhook_endpoint.disabled':
      return { endpointId: endpoint.id, url: endpoint.url, reason: 'failing', disabledAt: timestamp };
  }
}
