import type { CardBrand, CardDetails, ParsedCard } from './card.rules.js';
import { PROCESSING_ERROR } from '../../../contracts/checkout.js';
import type { AcquirerDisputeNotice, Outcome } from '../../../contracts/disputes.js';

/**
 * The payment processor (acquirer) behind the service: the simulator (simulator/charges.simulator.ts) or a real
 * acquirer's adapter (src/modules/stripe/). Card data stops here: the API exchanges the card for a token
 * in the request, and only the token (never the number or CVC) reaches a workflow, the database or a log;
 * with an acquirer that takes the card from the customer's browser (`openBrowserCharge`), it never arrives.
 * Every method is asynchronous and says its mode, because a real acquirer answers over the network and a
 * deployment may send each mode to another acquirer (`byMode`, processor.modes.ts).
 */
export interface PaymentProcessor {
  readonly name: string;
  /**
   * Exchanges a parsed card (Luhn passed, brand and last four read: `parseCard`) for a single-use token with
   * that brand and last four. An acquirer may still refuse the card (`InvalidCardError`).
   */
  tokenize(card: ParsedCard, livemode: boolean): Promise<CardToken>;
  /**
   * Opens the charge at the acquirer without moving money, for an acquirer whose charge is made in two
   * steps (Stripe: a PaymentIntent created, then confirmed). Answers the acquirer's own id for it, which
   * the service records under the charge's key before `charge` may confirm it, so a lookup can always
   * find, and close, whatever could still move money (docs/decisions.md, Payments). Null: an acquirer
   * keyed by the idempotency key alone (the simulator), with nothing to record. A charge the acquirer
   * refuses to open (an amount below its minimum) is declined here, and nothing is charged.
   */
  prepareCharge(request: Omit<ChargeRequest, 'reference'>): Promise<PreparedCharge>;
  /**
   * Charges a token, with the reference `prepareCharge` gave and the service recorded. The idempotency key
   * (the session id) makes a retried call return the first call's result instead of charging again. A
   * decline is an outcome; a transient fault throws `ProcessorUnavailableError` so the workflow's retry
   * policy takes over. A throw (a timeout included) means the outcome is unknown, not that nothing was
   * charged: ask `retrieveCharge`.
   */
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  /**
   * What became of the charge made under an idempotency key, once `charge` could not say, by the
   * acquirer's own id when one was recorded (`reference`). `not_found` must be final: no charge under
   * that key can land afterwards (the simulator closes the key; Stripe's adapter cancels the intent, and
   * the service has closed the key to a reference not yet recorded), so a session failed on it is never
   * a charged one. A transient fault throws, to be asked again.
   */
  retrieveCharge(charge: ChargeKey): Promise<ChargeLookup>;
  /**
   * Opens a charge that the customer confirms in the browser, at the acquirer (Stripe.js: the card never
   * reaches this service), keyed by the idempotency key: the same key opens the same charge. Answers the
   * acquirer's id for it, which the service records before the page may confirm it, and the secret the page
   * confirms it with. Absent: an acquirer that takes the card through this service (the simulator).
   */
  openBrowserCharge?(request: BrowserChargeRequest): Promise<OpenedBrowserCharge>;
  /**
   * What a charge the browser confirms has come to: its outcome, a decline made final (the charge closed, so
   * nothing can confirm it again), or `pending` while the customer may still confirm or authenticate it.
   * A transient fault throws, to be asked again.
   */
  readBrowserCharge?(charge: ChargeKey & { reference: string }): Promise<BrowserChargeReading>;
  /**
   * The secret the page confirms an opened charge with, while the customer has not tried to pay it yet
   * (the pay's answer came without it, or the page was reloaded); null once tried, settled or cancelled.
   * A transient fault throws.
   */
  browserChargeSecret?(charge: ChargeKey & { reference: string }): Promise<string | null>;
  /** Pays a withdrawal out to a wallet or crypto address, keyed by the withdrawal id (`payouts.ts`). */
  payout(request: PayoutRequest): Promise<PayoutOutcome>;
  /** Refunds a charge in full, keyed by the refund id (`refunds.ts`); `pending` while the acquirer has not settled it. */
  refund(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * The dispute the acquirer will report about a charge, when it is known at payment (the simulator's
   * dispute cards), or null. A real acquirer's notices come later as its own events (Stripe's
   * `charge.dispute.*` webhooks), or through `npm run admin -- dispute open`, so an adapter answers null.
   */
  disputeNotice(charge: { chargeId: string; livemode: boolean }): Promise<AcquirerDisputeNotice | null>;
  /**
   * The card network's decision on a dispute's submitted evidence, or null while it is still under review:
   * a real acquirer's decision arrives later as its own event (`charge.dispute.closed`), or an operator
   * enters it with `npm run admin -- dispute decide`. The dispute and its mode come with it: a live
   * dispute is never the simulator's test phrases' to decide where live payments are not simulated
   * (`refusingLive`).
   */
  reviewDisputeEvidence(review: EvidenceReview): Promise<Outcome | null>;
  /**
   * Sends the merchant's submitted evidence to the acquirer (Stripe: `disputes.update` with
   * `submit: true`). Safe to repeat with the same idempotency key. The simulator's network reads the
   * evidence from the database instead, so it has nothing to send.
   */
  submitDisputeEvidence(submission: EvidenceSubmission): Promise<void>;
  /** Tells the acquirer the merchant accepts the dispute (Stripe: `disputes.close`); a dispute it has closed already is done. */
  acceptDispute(dispute: AcquirerDisputeReference): Promise<void>;
}

/** What the network reviews: one dispute's submitted evidence, in its mode. */
export interface EvidenceReview {
  disputeId: string;
  livemode: boolean;
  evidence: Record<string, string | null>;
}

/** A dispute as the acquirer knows it: its own id (null for the simulator's) and the mode. */
export interface AcquirerDisputeReference {
  disputeId: string;
  acquirerDisputeId: string | null;
  livemode: boolean;
}

/** The evidence a merchant submitted, for the acquirer; the key makes a repeated call harmless. */
export interface EvidenceSubmission extends AcquirerDisputeReference {
  evidence: Record<string, string | null>;
  idempotencyKey: string;
}

export type { AcquirerDisputeNotice, Outcome, CardDetails, ParsedCard };

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
  /** The acquirer's id for the charge that `prepareCharge` opened and the service recorded; null when it gave none. */
  reference: string | null;
}

/** What an acquirer that takes the card in the customer's browser does beside the port's other steps. */
export type BrowserChargeSteps = 'openBrowserCharge' | 'readBrowserCharge' | 'browserChargeSecret';

/** A charge the customer confirms in the browser: its amount, key and mode (`openBrowserCharge`). */
export type BrowserChargeRequest = Omit<ChargeRequest, 'token' | 'reference'>;

export type OpenedBrowserCharge = { status: 'opened'; reference: string; clientSecret: string } | Extract<ChargeOutcome, { status: 'declined' }>;

/** A browser-confirmed charge as read now: final, or `pending` (the acquirer's own status said). */
export type BrowserChargeReading = ChargeOutcome | { status: 'pending'; acquirerStatus: string };

/** A charge as a lookup names it: its key, its mode, and the acquirer's id for it when one was recorded. */
export interface ChargeKey {
  idempotencyKey: string;
  livemode: boolean;
  reference: string | null;
}

export const DECLINE_CODES = ['card_declined', 'insufficient_funds', 'expired_card', 'processing_error'] as const;
export type DeclineCode = (typeof DECLINE_CODES)[number];

export type ChargeOutcome =
  | { status: 'succeeded'; chargeId: string }
  | { status: 'declined'; code: DeclineCode; message: string };

/** A charge opened at the acquirer (its id, or null when it keys by the idempotency key alone), or refused. */
export type PreparedCharge = { status: 'prepared'; reference: string | null } | Extract<ChargeOutcome, { status: 'declined' }>;

/** The processor's record of a charge key: the charge's outcome, or none ever made under it. */
export type ChargeLookup = ChargeOutcome | { status: 'not_found' };

/** What the customer is told for each decline (Stripe's wording, which customers recognise). */
export const DECLINE_MESSAGES: Record<DeclineCode, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  processing_error: PROCESSING_ERROR.message,
};

/** The acquirer refuses the card (a number its issuer does not know, say): the request is invalid, nothing is charged. */
export class InvalidCardError extends Error {
  constructor(
    readonly field: keyof CardDetails,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidCardError';
  }
}

/**
 * The acquirer refused a request for good (Stripe's `invalid_request_error` on evidence for a dispute that
 * no longer takes it): retrying the same request would be refused again, so it is not.
 */
export class AcquirerRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcquirerRefusedError';
  }
}

/** A transient fault at the processor: safe to retry with the same idempotency key. */
export class ProcessorUnavailableError extends Error {
  constructor(message = 'The processor could not process the charge; retry') {
    super(message);
    this.name = 'ProcessorUnavailableError';
  }
}

/**
 * The acquirer refuses this service's credentials (Stripe's 401 for a key it does not know, 403 for a
 * restricted key without the permission): nothing was done there, and nothing will be until an operator
 * fixes the key. Still a `ProcessorUnavailableError`, so a call whose outcome may be in doubt (a lookup of a
 * charge, a refund asked again) keeps its owner asking; the process says so loudly (an error line, `/readyz`).
 */
export class AcquirerConfigurationError extends ProcessorUnavailableError {
  constructor(message: string) {
    super(message);
    this.name = 'AcquirerConfigurationError';
  }
}

/** Refunding a charge (`PaymentProcessor.refund`), keyed by the refund id so a retry refunds once. */
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
 * Where a payout goes, as the processor takes it (`PaymentProcessor.payout`, keyed by the withdrawal id so
 * a retry pays once): the withdrawal rules' destinations fit it.
 */
export type PayoutDestination =
  | { destinationType: 'wallet'; destinationDetails: { walletEmail: string } }
  | { destinationType: 'crypto'; destinationDetails: { cryptoCoin: string; cryptoNetwork: string; cryptoAddress: string } };

export interface PayoutRequest {
  idempotencyKey: string;
  amountInCents: number;
  destination: PayoutDestination;
  livemode: boolean;
}

/** A wallet payout is identified by the processor's transaction id; a crypto payout by its chain hash. */
export type PayoutReference = { processorTransactionId: string } | { transactionHash: string };

export type PayoutOutcome = ({ status: 'paid' } & PayoutReference) | { status: 'declined'; message: string };
