import { createHash } from 'node:crypto';

/**
 * Refunding a charge (`PaymentProcessor.refund`). Like a charge, a refusal is an outcome and a transient
 * fault throws `ProcessorUnavailableError`. The idempotency key (the refund id) makes a retried refund
 * answer the first one's result instead of refunding twice.
 */
export interface RefundRequest {
  chargeId: string;
  amountInCents: number;
  idempotencyKey: string;
  livemode: boolean;
}

/**
 * The acquirer's answer: `succeeded` (the money is on its way back to the card), `declined` (it will not
 * be: the refund fails), or `pending`: the acquirer has taken it and not settled it yet (Stripe's
 * `pending` and `requires_action`), to be asked again with the same key.
 */
export type RefundOutcome =
  | { status: 'succeeded'; refundId: string }
  | { status: 'declined'; message: string }
  | { status: 'pending'; refundId: string; acquirerStatus: string };

/**
 * The simulator's refund. `decline` is the issuer's refusal the charge carries (card 4000000000005126),
 * or null. Deterministic by idempotency key.
 */
export async function simulatedRefund(request: RefundRequest, decline: string | null): Promise<RefundOutcome> {
  if (decline) return { status: 'declined', message: decline };
  const hash = createHash('sha256').update(`refund:${request.idempotencyKey}`).digest('hex');
  return { status: 'succeeded', refundId: `re_sim_${hash.slice(0, 24)}` };
}
