import type { MikroORM } from '@mikro-orm/postgresql';
import { beginPayment, chargeRequestOf, completePayment, failPayment, type PaymentDetails } from '../src/modules/checkout/payment.lifecycle.js';
import type { ChargeLookup, ChargeOutcome, PaymentProcessor } from '../src/modules/processor/processor.port.js';
import { simulatorWithBook } from '../src/modules/processor/charges.simulator.js';
import { postgresChargeBook } from '../src/modules/processor/charge-book.store.js';
import { metrics } from '../src/ops/metrics.js';
import type { DisputeTimes } from '../src/config.js';

export type { ChargeLookup, ChargeOutcome, PaymentDetails };

export interface PaymentActivityDeps {
  orm: MikroORM;
  /**
   * The card processor; unless a test or an acquirer adapter provides another, the simulator, recording
   * its charges in this database so a lookup after a restart finds them.
   */
  processor?: PaymentProcessor;
  /** The dispute clocks a dispute card's payment starts its dispute with (DISPUTE_* in src/config.ts). */
  disputes: DisputeTimes;
}

/** The payment steps the checkout workflow drives; each is a conditional transition, safe to run twice. */
export function createPaymentActivities(deps: PaymentActivityDeps) {
  const processor = deps.processor ?? simulatorWithBook(postgresChargeBook(deps.orm));
  const em = () => deps.orm.em.fork();
  return {
    /**
     * pending → processing with the customer's details; `started: false` when another attempt got there
     * first. Safe to retry: the attempt that moved the session is told so again.
     */
    async beginPayment(sessionId: string, details: PaymentDetails, attemptId: string) {
      return beginPayment(em(), sessionId, details, attemptId);
    },

    /**
     * Charges the card token for the session's total, keyed by the session id so a retry after a lost
     * answer never charges twice. A transient processor fault throws and is retried by the policy.
     */
    async chargeCard(sessionId: string, token: string): Promise<ChargeOutcome> {
      const request = await chargeRequestOf(deps.orm.em, sessionId);
      return processor.charge({ token, amountInCents: request.amountInCents, currency: request.currency, idempotencyKey: sessionId, livemode: request.livemode });
    },

    /**
     * Asks the processor what became of the session's charge, by its idempotency key (the session id),
     * when `chargeCard` could not say. A transient fault throws and is retried by the policy.
     */
    async lookUpCharge(sessionId: string): Promise<ChargeLookup> {
      const { livemode } = await chargeRequestOf(deps.orm.em, sessionId);
      return processor.retrieveCharge(sessionId, livemode);
    },

    /**
     * processing → completed with the ledger posting, the reserve, the event and the release's start, and
     * the dispute the acquirer will report about this charge, if it already says so.
     */
    async completePayment(sessionId: string, chargeId: string) {
      const notice = processor.disputeNotice(chargeId);
      const dispute = notice ? { notice, times: deps.disputes } : undefined;
      const { status, reserveId } = await completePayment(deps.orm.em, sessionId, chargeId, new Date(), dispute);
      metrics.payment('succeeded');
      return { status, reserveId };
    },

    /** processing → failed with the decline and `checkout.failed`. */
    async failPayment(sessionId: string, failure: { code: string; message: string }) {
      const result = await failPayment(deps.orm.em, sessionId, failure);
      metrics.payment('failed');
      return result;
    },
  };
}
export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
