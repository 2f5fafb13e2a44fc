import Stripe from 'stripe';
import type { Logger } from 'pino';
import {
  INVALID_CARD_NUMBER,
  AcquirerConfigurationError,
  AcquirerRefusedError,
  DECLINE_MESSAGES,
  InvalidCardError,
  ProcessorUnavailableError,
  type CardDetails,
  type ChargeLookup,
  type ChargeOutcome,
  type PaymentProcessor,
  type PayoutOutcome,
  type PayoutRequest,
} from '../processor/index.js';
import { declineOf, readIntent } from './stripe-charges.rules.js';
import { refundOutcomeOf } from './stripe-refunds.rules.js';
import { stripeEvidence } from './stripe-evidence.rules.js';
import { isRefusedKey, keyRefused } from './stripe-access.js';
import { createBrowserCharges } from './stripe-browser-charges.js';

/**
 * Stripe behind the processor port (docs/acquirer.md). The hosted page's charge is a PaymentIntent the
 * customer's browser confirms with Stripe.js (stripe-browser-charges.ts). The port's card flow: a PaymentIntent, created unconfirmed
 * (`prepareCharge`, its id recorded by the service) and then confirmed with the card's PaymentMethod, each
 * call with an Idempotency-Key derived from the session id; a lookup reads the recorded intent, and
 * cancels one never confirmed, so `not_found` is final (docs/decisions.md, Payments). Refunds are keyed by
 * the refund id; evidence goes with `disputes.update`. Disputes themselves arrive as Stripe's events
 * (stripe-events.routes.ts). Payouts have no Stripe rail: `payout` is the withdrawal rail configured apart,
 * or refuses.
 */
export interface StripeProcessorOptions {
  /** The withdrawal rail, configured apart (WITHDRAWAL_RAIL); without one a live payout is refused. */
  payout?: (request: PayoutRequest) => Promise<PayoutOutcome>;
  /** What a payout answers with no rail (the catalogue's `live_withdrawals_refused`). */
  noRailMessage: string;
  /** Where a key Stripe refuses is said, as an error. */
  log?: Logger;
}

/** Stripe's words for a card it will not take, by the field the API names. */
const CARD_FIELDS: Record<string, { field: keyof CardDetails; message: string }> = {
  invalid_number: { field: 'number', message: INVALID_CARD_NUMBER },
  incorrect_number: { field: 'number', message: INVALID_CARD_NUMBER },
  invalid_expiry_month: { field: 'expMonth', message: 'Expiry month is invalid' },
  invalid_expiry_year: { field: 'expYear', message: 'Expiry year is invalid' },
  expired_card: { field: 'expYear', message: 'Card has expired' },
  invalid_cvc: { field: 'cvc', message: 'Card security code is invalid' },
  incorrect_cvc: { field: 'cvc', message: 'Card security code is invalid' },
};

const isUnexpectedState = (err: unknown) => err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state';

export function createStripeProcessor(stripe: Stripe, options: StripeProcessorOptions): PaymentProcessor {
  /**
   * A failure that is not an answer: the network, Stripe's own errors and rate limit (the outcome unknown,
   * asked again); and a key Stripe refuses (401, 403), a configuration fault said at once, as an error line
   * and on `/readyz` (stripe-access.ts), while a call whose outcome may be in doubt is still asked again.
   */
  const unavailable = (err: unknown): never => {
    if (isRefusedKey(err)) {
      keyRefused(options.log, err.message);
      throw new AcquirerConfigurationError(`Stripe refused the secret key (${err.statusCode}): ${err.message}`);
    }
    if (err instanceof Stripe.errors.StripeError) throw new ProcessorUnavailableError(`Stripe: ${err.type}: ${err.message}`);
    throw err;
  };
  /** Brings an intent to an answer that stays true: one never confirmed, or declined, is cancelled first. */
  const settle = async (intent: Stripe.PaymentIntent): Promise<ChargeLookup> => {
    for (let i = 0; i < 3; i++) {
      const reading = readIntent(intent);
      if (!reading.settled) throw new ProcessorUnavailableError(`${reading.reason}; asked again later`);
      if (!reading.cancelFirst) return reading.settled;
      try {
        await stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `${intent.id}:cancel` });
        return reading.settled;
      } catch (err) {
        // Confirmed (or cancelled) in the meantime: what it became is the answer.
        if (!isUnexpectedState(err)) unavailable(err);
        intent = await stripe.paymentIntents.retrieve(intent.id).catch(unavailable);
      }
    }
    throw new ProcessorUnavailableError(`PaymentIntent ${intent.id} kept changing; asked again later`);
  };

  return {
    name: 'stripe',
    ...createBrowserCharges(stripe, { settle, unavailable, log: options.log }),

    /**
     * The card as a Stripe PaymentMethod. The hosted page's live payments never come here: their card goes
     * from the browser to Stripe (`openBrowserCharge`), and the pay call refuses a card for them; this and
     * `charge` remain the port's card flow, held to Stripe's API by the contract tests. The card comes parsed (`parseCard`): Luhn passed, and the brand and last
     * four read from the number itself, not from Stripe's answer.
     */
    async tokenize(card) {
      try {
        const method = await stripe.paymentMethods.create({
          type: 'card',
          card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
        });
        return { token: method.id, brand: card.brand, last4: card.last4 };
      } catch (err) {
        const refused = err instanceof Stripe.errors.StripeCardError ? CARD_FIELDS[err.code ?? ''] : undefined;
        if (refused) throw new InvalidCardError(refused.field, refused.message);
        return unavailable(err);
      }
    },

    async prepareCharge(request) {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: request.amountInCents,
            currency: 'usd',
            payment_method: request.token,
            allowed_payment_method_types: ['card'],
            capture_method: 'automatic',
            confirm: false,
            metadata: { session_id: request.idempotencyKey },
          },
          { idempotencyKey: `${request.idempotencyKey}:intent` },
        );
        return { status: 'prepared', reference: intent.id };
      } catch (err) {
        // Refused outright (an amount below Stripe's minimum of $0.50): nothing was opened, nothing charged.
        if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'amount_too_small') {
          return { status: 'declined', code: 'processing_error', message: DECLINE_MESSAGES.processing_error };
        }
        // A key Stripe refuses opened nothing either: declined now, not asked again until the key is fixed.
        if (isRefusedKey(err)) {
          keyRefused(options.log, err.message);
          return { status: 'declined', code: 'processing_error', message: DECLINE_MESSAGES.processing_error };
        }
        return unavailable(err);
      }
    },

    async charge(request): Promise<ChargeOutcome> {
      if (!request.reference) return { status: 'declined', code: 'processing_error', message: DECLINE_MESSAGES.processing_error };
      let intent: Stripe.PaymentIntent;
      try {
        intent = await stripe.paymentIntents.confirm(request.reference, { payment_method: request.token }, { idempotencyKey: `${request.idempotencyKey}:confirm` });
      } catch (err) {
        if (err instanceof Stripe.errors.StripeCardError) {
          const declined = declineOf(err);
          if (err.payment_intent) await settle(err.payment_intent);
          return declined;
        }
        // Confirmed before (a retry past the key's 24 hours), or cancelled by a lookup: what it is, is the answer.
        if (!isUnexpectedState(err) && !(err instanceof Stripe.errors.StripeIdempotencyError)) unavailable(err);
        intent = await stripe.paymentIntents.retrieve(request.reference).catch(unavailable);
      }
      const outcome = await settle(intent);
      // Cancelled (by a lookup that closed the key first): refused, never made.
      return outcome.status === 'not_found' ? { status: 'declined', code: 'processing_error', message: DECLINE_MESSAGES.processing_error } : outcome;
    },

    /** The recorded intent, settled; none recorded before the key was closed: nothing was ever confirmed. */
    async retrieveCharge({ reference }) {
      if (!reference) return { status: 'not_found' };
      return settle(await stripe.paymentIntents.retrieve(reference).catch(unavailable));
    },

    async payout(request) {
      return options.payout ? options.payout(request) : { status: 'declined', message: options.noRailMessage };
    },

    /**
     * A refund of the intent, keyed by the refund id. A refund still `pending` is read again by its id (a
     * repeated create would replay the first answer for 24 hours). Past those 24 hours a create is refused
     * as already refunded; this refund is then found among the intent's by its id in the metadata.
     */
    async refund(request) {
      try {
        let refund = await stripe.refunds.create(
          { payment_intent: request.chargeId, amount: request.amountInCents, metadata: { refund_id: request.idempotencyKey } },
          { idempotencyKey: request.idempotencyKey },
        );
        if (refund.status === 'pending' || refund.status === 'requires_action') refund = await stripe.refunds.retrieve(refund.id);
        return refundOutcomeOf(refund);
      } catch (err) {
        if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'charge_already_refunded') {
          const listed = await stripe.refunds.list({ payment_intent: request.chargeId, limit: 100 }).catch(unavailable);
          const ours = listed.data.find((refund) => refund.metadata?.refund_id === request.idempotencyKey);
          return ours ? refundOutcomeOf(ours) : { status: 'declined', message: 'The payment was refunded at Stripe already, not by this refund' };
        }
        if (err instanceof Stripe.errors.StripeInvalidRequestError) return { status: 'declined', message: `Stripe refused the refund: ${err.message}` };
        return unavailable(err);
      }
    },

    // Stripe's disputes arrive as its own events, later; its network's decision too (charge.dispute.closed).
    async disputeNotice() {
      return null;
    },
    async reviewDisputeEvidence() {
      return null;
    },

    async submitDisputeEvidence({ acquirerDisputeId, evidence, idempotencyKey }) {
      if (!acquirerDisputeId) return;
      try {
        await stripe.disputes.update(acquirerDisputeId, { evidence: stripeEvidence(evidence), submit: true }, { idempotencyKey });
      } catch (err) {
        if (err instanceof Stripe.errors.StripeInvalidRequestError) throw new AcquirerRefusedError(`Stripe refused the evidence for ${acquirerDisputeId}: ${err.message}`);
        // A refused key is asked again (a configuration error, loud on /readyz), not a refusal of the
        // evidence: given up, a key rolled near the due date lost the merchant's dispute, and Stripe's key
        // message reached the merchant as the reason.
        unavailable(err);
      }
    },

    async acceptDispute({ acquirerDisputeId, disputeId }) {
      if (!acquirerDisputeId) return;
      try {
        await stripe.disputes.close(acquirerDisputeId, {}, { idempotencyKey: `${disputeId}-accept` });
      } catch (err) {
        if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) return unavailable(err);
        // Closed at Stripe already (its decision, or the deadline): nothing left to accept.
        const dispute = await stripe.disputes.retrieve(acquirerDisputeId).catch(unavailable);
        if (!['won', 'lost', 'warning_closed'].includes(dispute.status)) throw new AcquirerRefusedError(`Stripe refused to close ${acquirerDisputeId}: ${err.message}`);
      }
    },
  };
}
