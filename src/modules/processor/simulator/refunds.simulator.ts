import { createHash } from 'node:crypto';
import type { RefundOutcome, RefundRequest } from '../processor.port.js';

/**
 * Refunding a charge (`PaymentProcessor.refund`). Like a charge, a refusal is an outcome and a transient
 * fault throws `ProcessorUnavailableError`. The idempotency key (the refund id) makes a retried refund
 * answer the first one's result instead of refunding twice.
 */
/**
 * The simulator's refund. `decline` is the issuer's refusal the charge carries (card 4000000000005126),
 * or null. Deterministic by idempotency key.
 */
export async function simulatedRefund(request: RefundRequest, decline: string | null): Promise<RefundOutcome> {
  if (decline) return { status: 'declined', message: decline };
  const hash = createHash('sha256').update(`refund:${request.idempotencyKey}`).digest('hex');
  return { status: 'succeeded', refundId: `re_sim_${hash.slice(0, 24)}` };
}
