import type { MikroORM } from '@mikro-orm/postgresql';
import { CheckoutSession } from '../src/modules/checkout/index.js';
import type { PaymentProcessor } from '../src/modules/processor/index.js';
import { Refund, completeRefund, failRefund, startRefundProcessing, refundView } from '../src/modules/refunds/index.js';
import { REFUND_DECLINED } from '../contracts/failure-types.js';
import { declined, withHeartbeats } from './processor-call.js';
import type { RefundRecord } from '../contracts/refunds.js';
import { failpoint } from '../src/ops/failpoints.js';
import { metrics } from '../src/ops/metrics.js';

export interface RefundActivityDeps {
  orm: MikroORM;
  /** The processor, chosen where the process is wired (src/main/payment-processor.ts). */
  processor: PaymentProcessor;
}

export function createRefundActivities(deps: RefundActivityDeps) {
  const { processor } = deps;
  const em = () => deps.orm.em.fork();
  return {
    /** `pending` → `processing`; returns the refund either way. */
    async startRefundProcessing(refundId: string): Promise<RefundRecord> {
      const refund = await startRefundProcessing(em(), refundId);
      await failpoint('refund.after-processing', refund.checkoutSessionId);
      return refundView(refund);
    },

    /**
     * The refund on the processor, keyed by the refund id so a retry (or a new worker after a crash)
     * never refunds twice. Returns the processor's refund id; a refusal is a non-retryable failure the
     * workflow turns into `failed`; a transient fault, or a refund the acquirer has not settled, throws
     * and is retried.
     */
    async refundOnProcessor(refundId: string): Promise<string> {
      const refund = await em().findOneOrFail(Refund, { id: refundId });
      const session = await em().findOneOrFail(CheckoutSession, { id: refund.checkoutSessionId });
      if (!session.processorChargeId) throw declined(REFUND_DECLINED, 'The payment has no processor charge to refund');
      const outcome = await withHeartbeats(
        processor.refund({
          chargeId: session.processorChargeId,
          amountInCents: refund.amountInCents,
          idempotencyKey: refund.id,
          livemode: refund.livemode,
        }),
      );
      await failpoint('refund.after-processor', refund.checkoutSessionId);
      if (outcome.status === 'declined') throw declined(REFUND_DECLINED, outcome.message);
      // Taken by the acquirer, not settled yet: the refund stays `processing` and is asked again, by the
      // same key, on the workflow's backoff (a retryable failure the operator sees as the last error).
      if (outcome.status === 'pending') throw new Error(`Refund ${outcome.refundId} is ${outcome.acquirerStatus} at the acquirer; asked again later`);
      return outcome.refundId;
    },

    async completeRefund(refundId: string, processorRefundId: string): Promise<RefundRecord> {
      const refund = await em().transactional((tx) => completeRefund(tx, refundId, processorRefundId));
      metrics.refund('completed');
      return refundView(refund);
    },

    /** `failed`, in one transaction: the reserves' shares back to them, the rest to available. */
    async failRefund(refundId: string, failureReason: string): Promise<RefundRecord> {
      const refund = await em().transactional((tx) => failRefund(tx, refundId, failureReason));
      metrics.refund('failed');
      return refundView(refund);
    },
  };
}
export type RefundActivities = ReturnType<typeof createRefundActivities>;
