import Stripe from 'stripe';
import { DECLINE_MESSAGES, type BrowserChargeReading, type BrowserChargeSteps, type ChargeLookup, type PaymentProcessor } from '../processor/index.js';
import { isRefusedKey, keyRefused } from './stripe-access.js';
import type { Logger } from 'pino';

/**
 * The hosted page's charge in live mode (docs/acquirer.md, The hosted page and Stripe.js): a PaymentIntent
 * created here, unconfirmed, and confirmed by the customer's browser with Stripe.js, which collects the card
 * in Stripe's own frames and runs 3-D Secure (`handleNextAction`, or Stripe's redirect to the `return_url`).
 * The card never reaches this service; the page gets the intent's `client_secret` only.
 */
export interface BrowserChargeTools {
  /** Brings an intent to an answer that stays true (stripe.processor.ts): one declined is cancelled first. */
  settle: (intent: Stripe.PaymentIntent) => Promise<ChargeLookup>;
  /** A failure that is not an answer, thrown as the port's (stripe.processor.ts). */
  unavailable: (err: unknown) => never;
  log?: Logger;
}

/**
 * Still the customer's to finish: never confirmed, confirmed and waiting for authentication, or being
 * processed. `requires_payment_method` after an attempt is a decline (its `last_payment_error`), made final.
 */
/** A read made while a customer's page waits for it: short, and not retried (the page refreshes). */
const PAGE_READ = { timeout: 3_000, maxNetworkRetries: 0 };

const STILL_OPEN = new Set(['requires_confirmation', 'requires_action', 'processing', 'requires_capture']);

export function createBrowserCharges(stripe: Stripe, tools: BrowserChargeTools): Required<Pick<PaymentProcessor, BrowserChargeSteps>> {
  const processingError = { status: 'declined', code: 'processing_error', message: DECLINE_MESSAGES.processing_error } as const;
  return {
    /**
     * The session's PaymentIntent, under the same Idempotency-Key as the card flow's (`<session>:intent`): one
     * intent per session whichever way it is paid. `return_url` is the page's to give `confirmPayment`:
     * Stripe takes it only with a confirmation, and this service never confirms the intent itself.
     */
    async openBrowserCharge(request) {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: request.amountInCents,
            currency: 'usd',
            allowed_payment_method_types: ['card'],
            capture_method: 'automatic',
            confirm: false,
            metadata: { session_id: request.idempotencyKey },
          },
          { idempotencyKey: `${request.idempotencyKey}:intent` },
        );
        if (!intent.client_secret) return processingError;
        return { status: 'opened', reference: intent.id, clientSecret: intent.client_secret };
      } catch (err) {
        // Refused outright (below Stripe's minimum, or a key it refuses): nothing was opened, nothing charged.
        if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'amount_too_small') return processingError;
        if (isRefusedKey(err)) {
          keyRefused(tools.log, err.message);
          return processingError;
        }
        return tools.unavailable(err);
      }
    },

    async readBrowserCharge({ reference }): Promise<BrowserChargeReading> {
      const intent = await stripe.paymentIntents.retrieve(reference).catch(tools.unavailable);
      const open = STILL_OPEN.has(intent.status) || (intent.status === 'requires_payment_method' && !intent.last_payment_error);
      if (open) return { status: 'pending', acquirerStatus: intent.status };
      const settled = await tools.settle(intent);
      // Cancelled (the session's expiry, or an operator at Stripe): nothing was charged, and nothing will be.
      return settled.status === 'not_found' ? processingError : settled;
    },

    /**
     * Only an intent never tried: one confirmed (declined, or waiting on 3-D Secure) is the workflow's to
     * settle. Read for a page load, so briefly and once: a page that gets no answer shows the processing
     * page, which asks again on its next refresh.
     */
    async browserChargeSecret({ reference }) {
      const intent = await stripe.paymentIntents.retrieve(reference, {}, PAGE_READ).catch(tools.unavailable);
      const untried = intent.status === 'requires_payment_method' && !intent.last_payment_error;
      return untried ? (intent.client_secret ?? null) : null;
    },
  };
}
