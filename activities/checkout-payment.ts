import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import {
  beginPayment,
  chargeRequestOf,
  completePayment,
  failPayment,
  paymentInDoubt,
  paymentToComplete,
  chargeReferenceOf,
  closeChargeKey,
  recordChargeReference,
} from '../src/modules/checkout/index.js';
import type { PaymentDetails } from '../contracts/checkout.js';
import { announceDispute } from '../src/modules/disputes/index.js';
import { DECLINE_MESSAGES, type ChargeLookup, type ChargeOutcome, type PaymentProcessor } from '../src/modules/processor/index.js';
import { failpoint } from '../src/ops/failpoints.js';
import { metrics } from '../src/ops/metrics.js';
import type { DisputeTimes } from '../src/config.js';

export type { ChargeLookup, ChargeOutcome, PaymentDetails };

export interface PaymentActivityDeps {
  orm: MikroORM;
  /** The card processor, chosen where the process is wired (src/main/payment-processor.ts). */
  processor: PaymentProcessor;
  /** The dispute clocks a dispute card's payment starts its dispute with (DISPUTE_* in src/config.ts). */
  disputes: DisputeTimes;
  /** The worker's log: a payment settled in doubt is a warning an operator should see. */
  log?: Logger;
}

/** The payment steps the checkout workflow drives; each is a conditional transition, safe to run twice. */
export function createPaymentActivities(deps: PaymentActivityDeps) {
  const { processor } = deps;
  const em = () => deps.orm.em.fork();
  const settled = (outcome: 'completed' | 'failed', sessionId: string, how: string) => {
    metrics.paymentSettled(outcome);
    deps.log?.warn({ sessionId, outcome }, `payment in doubt settled: session ${sessionId} ${outcome} (${how}); its pay had been lost`);
  };
  /**
   * processing → completed and, in the same transaction, the start of the dispute the acquirer already
   * announces about this charge (the simulator's dispute cards). The acquirer is asked first, outside the
   * transaction, so no lock waits on it.
   */
  const complete = async (sessionId: string, chargeId: string) => {
    const payment = await paymentToComplete(deps.orm.em.fork(), sessionId);
    if (!payment) throw new Error(`checkout session ${sessionId} not found`);
    const notice = await processor.disputeNotice({ chargeId, livemode: payment.livemode });
    const at = new Date();
    const { status, reserveId } = await em().transactional(async (tx) => {
      const done = await completePayment(tx, payment, chargeId, at);
      if (done.completed && notice) {
        announceDispute(tx, { businessId: payment.businessId, livemode: payment.livemode, sessionId, amountInCents: payment.total }, notice, deps.disputes, at);
      }
      return done;
    });
    metrics.payment('succeeded');
    return { status, reserveId };
  };
  const fail = async (sessionId: string, failure: { code: string; message: string }) => {
    const result = await em().transactional((tx) => failPayment(tx, sessionId, failure));
    metrics.payment('failed');
    return result;
  };
  /**
   * The processor's record of the session's charge, which closes its key first: a reference the acquirer
   * gave and the service recorded before is what it is asked about; none recorded by then never will be.
   */
  const lookUp = async (sessionId: string, livemode: boolean): Promise<ChargeLookup> => {
    const reference = await closeChargeKey(em(), sessionId);
    return processor.retrieveCharge({ idempotencyKey: sessionId, livemode, reference });
  };
  return {
    /**
     * pending → processing with the customer's details; `started: false` when another attempt got there
     * first. Safe to retry: the attempt that moved the session is told so again.
     */
    async beginPayment(sessionId: string, details: PaymentDetails, attemptId: string) {
      await failpoint('pay.before-begin', sessionId);
      const begun = await beginPayment(em(), sessionId, details, attemptId);
      await failpoint('pay.after-begin', sessionId);
      return begun;
    },

    /**
     * Charges the card token for the session's total, keyed by the session id so a retry after a lost
     * answer never charges twice. A transient processor fault throws and is retried by the policy.
     */
    async chargeCard(sessionId: string, token: string): Promise<ChargeOutcome> {
      const { amountInCents, currency, livemode } = await chargeRequestOf(deps.orm.em, sessionId);
      const request = { token, amountInCents, currency, idempotencyKey: sessionId, livemode };
      // An acquirer that opens the charge first (Stripe) gives its id, which must stand here before the
      // charge may be confirmed; a lookup that closed the key first means it never may be.
      const prepared = await processor.prepareCharge(request);
      if (prepared.status === 'declined') return prepared;
      let reference: string | null = null;
      if (prepared.reference) {
        const recorded = await recordChargeReference(em(), sessionId, prepared.reference);
        if ('closed' in recorded) return { status: 'declined', code: 'processing_error', message: DECLINE_MESSAGES.processing_error };
        reference = recorded.reference;
      }
      const outcome = await processor.charge({ ...request, reference });
      await failpoint('pay.after-charge', sessionId);
      return outcome;
    },

    /**
     * Opens the session's charge for the customer's browser to confirm at the acquirer (Stripe.js), and
     * records its id before the page is given the secret that confirms it: a lookup that closed the key first
     * means it never may be, and the page is never told the secret.
     */
    async openBrowserPayment(sessionId: string, returnUrl: string) {
      const { amountInCents, currency, livemode } = await chargeRequestOf(deps.orm.em, sessionId);
      const opened = await processor.openBrowserCharge!({ amountInCents, currency, idempotencyKey: sessionId, livemode });
      if (opened.status === 'declined') return opened;
      const recorded = await recordChargeReference(em(), sessionId, opened.reference);
      if ('closed' in recorded) return { status: 'declined' as const, code: 'processing_error' as const, message: DECLINE_MESSAGES.processing_error };
      return { status: 'opened' as const, clientSecret: opened.clientSecret, returnUrl };
    },

    /**
     * What the browser's confirmation came to, read at the acquirer when it has news (its event, the
     * customer's return): completes or fails the session as the card flow does, or leaves it `processing`
     * while the customer may still confirm or authenticate (`pending`). Safe to run twice: both moves are
     * conditional on `processing`.
     */
    async settleBrowserPayment(sessionId: string): Promise<{ outcome: 'completed' | 'failed' | 'pending' | 'not_processing'; status: string }> {
      const { livemode, status } = await chargeRequestOf(deps.orm.em, sessionId);
      if (status !== 'processing') return { outcome: 'not_processing', status };
      const reference = await chargeReferenceOf(em(), sessionId);
      if (!reference) return { outcome: 'pending', status };
      const reading = await processor.readBrowserCharge!({ idempotencyKey: sessionId, livemode, reference });
      if (reading.status === 'pending') return { outcome: 'pending', status };
      if (reading.status === 'succeeded') {
        const done = await complete(sessionId, reading.chargeId);
        return { outcome: done.status === 'completed' ? 'completed' : 'not_processing', status: done.status };
      }
      const done = await fail(sessionId, { code: reading.code, message: reading.message });
      return { outcome: done.status === 'failed' ? 'failed' : 'not_processing', status: done.status };
    },

    /**
     * Asks the processor what became of the session's charge, by its idempotency key (the session id),
     * when `chargeCard` could not say. A transient fault throws and is retried by the policy.
     */
    async lookUpCharge(sessionId: string): Promise<ChargeLookup> {
      const { livemode } = await chargeRequestOf(deps.orm.em, sessionId);
      return lookUp(sessionId, livemode);
    },

    /**
     * processing → completed with the ledger posting, the reserve, the event and the release's start, and
     * the dispute the acquirer will report about this charge, if it already says so.
     */
    async completePayment(sessionId: string, chargeId: string) {
      return complete(sessionId, chargeId);
    },

    /** The session's status and, while `processing`, its attempt and how long it has been so. */
    async paymentInDoubt(sessionId: string) {
      return paymentInDoubt(deps.orm.em.fork(), sessionId);
    },

    /**
     * Settles a payment in doubt (`processing`, with no pay running it): looks the session's charge up by
     * its idempotency key, which closes the key, then completes the payment with the charge found, or fails
     * it (`processing_error` when there is none). Safe to run twice: the lookup answers the same, and both
     * steps are conditional on `processing`. A transient processor fault throws and is retried.
     */
    async settlePayment(sessionId: string): Promise<{ status: string; chargeId: string | null; reason: string }> {
      const { livemode, status } = await chargeRequestOf(deps.orm.em, sessionId);
      if (status !== 'processing') return { status, chargeId: null, reason: 'no longer processing' };
      const charge = await lookUp(sessionId, livemode);
      if (charge.status === 'succeeded') {
        const done = await complete(sessionId, charge.chargeId);
        if (done.status === 'completed') settled('completed', sessionId, `charge ${charge.chargeId} found`);
        return { status: done.status, chargeId: charge.chargeId, reason: 'charge found' };
      }
      const failure = charge.status === 'declined' ? { code: charge.code, message: charge.message } : { code: 'processing_error', message: DECLINE_MESSAGES.processing_error };
      const reason = charge.status === 'declined' ? `declined: ${charge.code}` : 'no charge under the session\'s key';
      const done = await fail(sessionId, failure);
      if (done.status === 'failed') settled('failed', sessionId, reason);
      return { status: done.status, chargeId: null, reason };
    },

    /** processing → failed with the decline and `checkout.failed`. */
    async failPayment(sessionId: string, failure: { code: string; message: string }) {
      return fail(sessionId, failure);
    },
  };
}
export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
