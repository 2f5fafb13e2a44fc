import type { CardBrand } from './card.rules.js';
import type { PayoutOutcome, PayoutRequest } from './payouts.simulator.js';
import type { RefundOutcome, RefundRequest } from './refunds.simulator.js';
import type { DisputeReason } from '../../../contracts/disputes.js';

/**
 * The payment processor (acquirer) behind the service. Card data stops here: the API exchanges the card
 * for a token in the request, and only the token (never the number or CVC) reaches a workflow, the
 * database or a log. Later issues add `refund` and `payout` to this interface and to the simulator.
 */
export interface PaymentProcessor {
  readonly name: string;
  /** Checks the card and returns a single-use token with the brand and last four digits. */
  tokenize(card: CardDetails): Promise<CardToken>;
  /**
   * Charges a token. The idempotency key (the session id) makes a retried call return the first call's
   * result instead of charging again. A decline is an outcome; a transient fault throws
   * `ProcessorUnavailableError` so the workflow's retry policy takes over. A throw (a timeout included)
   * means the outcome is unknown, not that nothing was charged: ask `retrieveCharge`.
   */
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  /**
   * What became of the charge made under an idempotency key, once `charge` could not say. `not_found`
   * must be final: no charge under that key can land afterwards (the simulator closes the key), so a
   * session failed on it is never a charged one. A transient fault throws, to be asked again.
   */
  retrieveCharge(idempotencyKey: string, livemode: boolean): Promise<ChargeLookup>;
  /** Pays a withdrawal out to a wallet or crypto address, keyed by the withdrawal id (`payouts.ts`). */
  payout(request: PayoutRequest): Promise<PayoutOutcome>;
  /** Refunds a charge in full, keyed by the refund id (`refunds.ts`). */
  refund(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * The dispute the acquirer will report about a charge, when it is known at payment (the simulator's
   * dispute cards), or null. A real acquirer's notices come later through its own channel
   * (`npm run admin -- dispute open`), so an adapter answers null.
   */
  disputeNotice(chargeId: string): AcquirerDisputeNotice | null;
  /**
   * The card network's decision on a dispute's submitted evidence, or null while it is still under review
   * (then an operator enters the acquirer's decision with `npm run admin -- dispute decide`). The dispute
   * and its mode come with it: a live dispute is the acquirer's to decide, never the simulator's test
   * phrases where live payments are not simulated (`refusingLive`).
   */
  reviewDisputeEvidence(review: EvidenceReview): 'won' | 'lost' | null;
}

/** What the network reviews: one dispute's submitted evidence, in its mode. */
/** What the acquirer will report about a charge: a chargeback or an inquiry, and why. */
export interface AcquirerDisputeNotice {
  reason: DisputeReason;
  inquiry: boolean;
}

export interface EvidenceReview {
  disputeId: string;
  livemode: boolean;
  evidence: Record<string, string | null>;
}

export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

export interface CardToken {
  token: string;
  brand: CardBrand;
  last4: string;
}

export interface ChargeRequest {
  token: string;
  amountInCents: number;
  currency: 'USD';
  idempotencyKey: string;
  livemode: boolean;
}

export const DECLINE_CODES = ['card_declined', 'insufficient_funds', 'expired_card', 'processing_error'] as const;
export type DeclineCode = (typeof DECLINE_CODES)[number];

export type ChargeOutcome =
  | { status: 'succeeded'; chargeId: string }
  | { status: 'declined'; code: DeclineCode; message: string };

/** The processor's record of a charge key: the charge's outcome, or none ever made under it. */
export type ChargeLookup = ChargeOutcome | { status: 'not_found' };

/** What the customer is told for each decline (Stripe's wording, which customers recognise). */
export const DECLINE_MESSAGES: Record<DeclineCode, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  processing_error: 'An error occurred while processing your card. Try again in a little bit.',
};

/** The card cannot be tokenised (it fails Luhn, say): the request is invalid, nothing is charged. */
export class InvalidCardError extends Error {
  constructor(
    readonly field: keyof CardDetails,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidCardError';
  }
}

/** A transient fault at the processor: safe to retry with the same idempotency key. */
export class ProcessorUnavailableError extends Error {
  constructor(message = 'The processor could not process the charge; retry') {
    super(message);
    this.name = 'ProcessorUnavailableError';
  }
}
