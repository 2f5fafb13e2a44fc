import { createHash, randomBytes } from 'node:crypto';
import { simulatedPayout } from './payouts.simulator.js';
import { simulatedRefund } from './refunds.simulator.js';
import { memoryChargeBook, type SimulatorChargeBook } from './charge-book.store.js';
import { payoutMove, payoutOutcomeOf, refundMove, refundOutcomeOf } from './simulator-moves.rules.js';
import { DISPUTE_NOTICES, simulatedEvidenceDecision, type DisputedChargeKind } from './disputes.simulator.js';
import {
  DECLINE_MESSAGES,
  ProcessorUnavailableError,
  type ParsedCard,
  type ChargeKey,
  type ChargeLookup,
  type ChargeOutcome,
  type ChargeRequest,
  type PayoutOutcome,
  type PayoutRequest,
  type RefundOutcome,
  type RefundRequest,
  type DeclineCode,
  type PaymentProcessor,
} from '../processor.port.js';

/**
 * What a simulated card does, carried inside its token the way Stripe's test tokens (`tok_chargeDeclined`)
 * carry theirs, so the charge needs no card data.
 */
export const SIMULATED_BEHAVIOURS = [
  'success',
  'declined',
  'insufficient_funds',
  'expired_card',
  'processing_error',
  'refund_declined',
  'timeout_charged',
  'chargeback_fraudulent',
  'chargeback_product_not_received',
  'inquiry_fraudulent',
] as const;
export type SimulatedBehaviour = (typeof SIMULATED_BEHAVIOURS)[number];

/** The test cards; any other Luhn-valid number succeeds. */
export const TEST_CARDS: Record<string, SimulatedBehaviour> = {
  '4242424242424242': 'success',
  '4000000000000002': 'declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000119': 'processing_error',
  // Pays, but a later refund of the charge fails permanently.
  '4000000000005126': 'refund_declined',
  // The charge goes through, but every call times out, so only a lookup can tell (408: Request Timeout).
  '4000000000000408': 'timeout_charged',
  // Pay, then the acquirer's notice opens a dispute of the charge a few seconds later (Stripe's numbers).
  '4000000000000259': 'chargeback_fraudulent',
  '4000000000002685': 'chargeback_product_not_received',
  '4000000000001976': 'inquiry_fraudulent',
};

const DECLINES: Partial<Record<SimulatedBehaviour, DeclineCode>> = {
  declined: 'card_declined',
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
};

const TOKEN = new RegExp(`^tok_sim_(${SIMULATED_BEHAVIOURS.join('|')})_[0-9a-f]{24}$`);

/** `tok_sim_<behaviour>_<random>` → the behaviour, or null for a token the simulator never issued. */
export function tokenBehaviour(token: string): SimulatedBehaviour | null {
  return (TOKEN.exec(token)?.[1] as SimulatedBehaviour | undefined) ?? null;
}

/**
 * Charge ids: `ch_sim_<kind>_<hash of the idempotency key>`. Deterministic, so a retried charge answers
 * the first charge's id. `kind` is `refund_declined` for a charge whose refund must fail ("Refund
 * declined by the card issuer"), a dispute card's kind for a charge the acquirer will dispute, otherwise
 * `ok`; the simulator's `refund` and `disputeNotice` read it back.
 */
export type SimulatedChargeKind = 'ok' | 'refund_declined' | DisputedChargeKind;
const CHARGE_KINDS: readonly SimulatedChargeKind[] = ['ok', 'refund_declined', ...(Object.keys(DISPUTE_NOTICES) as DisputedChargeKind[])];
const CHARGE_ID = new RegExp(`^ch_sim_(${CHARGE_KINDS.join('|')})_[0-9a-f]{24}$`);
export const REFUND_DECLINED_MESSAGE = 'Refund declined by the card issuer';

export function simulatedChargeId(kind: SimulatedChargeKind, idempotencyKey: string): string {
  return `ch_sim_${kind}_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 24)}`;
}

export function chargeKind(chargeId: string): SimulatedChargeKind | null {
  return (CHARGE_ID.exec(chargeId)?.[1] as SimulatedChargeKind | undefined) ?? null;
}

/** Said when a charge call times out: its outcome is unknown, not a decline. */
export const CHARGE_TIMEOUT_MESSAGE = 'The processor did not answer in time; the charge may have gone through';

/**
 * The simulator. Its charges, lookups, refunds and payouts take the book they record in as a last argument
 * (the one it was made with when absent); `simulatorWithBook` binds one, as the worker does with PostgreSQL.
 */
export interface SimulatorProcessor extends PaymentProcessor {
  charge(request: ChargeRequest, book?: SimulatorChargeBook): Promise<ChargeOutcome>;
  retrieveCharge(charge: ChargeKey, book?: SimulatorChargeBook): Promise<ChargeLookup>;
  refund(request: RefundRequest, book?: SimulatorChargeBook): Promise<RefundOutcome>;
  payout(request: PayoutRequest, book?: SimulatorChargeBook): Promise<PayoutOutcome>;
}

/** What a charge with this token does, before anything is recorded. */
function chargeOutcome(behaviour: SimulatedBehaviour | null, idempotencyKey: string): ChargeOutcome {
  const declined = behaviour ? DECLINES[behaviour] : 'card_declined';
  if (declined) return { status: 'declined', code: declined, message: DECLINE_MESSAGES[declined] };
  const kind: SimulatedChargeKind = behaviour && (CHARGE_KINDS as readonly string[]).includes(behaviour) ? (behaviour as SimulatedChargeKind) : 'ok';
  return { status: 'succeeded', chargeId: simulatedChargeId(kind, idempotencyKey) };
}

/** The simulator: test keys always; live keys where no acquirer is configured and live payments are simulated (processor.modes.ts). */
export function createSimulatorProcessor(ownBook: SimulatorChargeBook = memoryChargeBook()): SimulatorProcessor {
  return {
    name: 'simulator',

    async tokenize(card: ParsedCard) {
      const behaviour = TEST_CARDS[card.number] ?? 'success';
      return { token: `tok_sim_${behaviour}_${randomBytes(12).toString('hex')}`, brand: card.brand, last4: card.last4 };
    },

    /** Keyed by the idempotency key alone: nothing to open first, nothing for the service to record. */
    async prepareCharge() {
      return { status: 'prepared', reference: null } as const;
    },

    /**
     * Records the outcome under the idempotency key, first writer wins, so a retried charge answers the
     * first one's outcome and one key is charged at most once. Card …0119 fails before anything is
     * recorded (the charge never happened); card …0408 is recorded as charged, then the call times out.
     */
    async charge(request: ChargeRequest, book = ownBook): Promise<ChargeOutcome> {
      const behaviour = tokenBehaviour(request.token);
      if (behaviour === 'processing_error') throw new ProcessorUnavailableError();
      const standing = await book.claim(request.idempotencyKey, request.livemode, chargeOutcome(behaviour, request.idempotencyKey));
      if (behaviour === 'timeout_charged') throw new ProcessorUnavailableError(CHARGE_TIMEOUT_MESSAGE);
      // A lookup found nothing under this key and closed it: this late charge is refused, never made.
      if (standing.status === 'not_found') return { status: 'declined', code: 'processing_error', message: DECLINE_MESSAGES.processing_error };
      return standing;
    },

    /** The recorded outcome; a key with none is closed as `not_found`, so the answer stays true. */
    async retrieveCharge({ idempotencyKey, livemode }: ChargeKey, book = ownBook): Promise<ChargeLookup> {
      return book.claim(idempotencyKey, livemode, { status: 'not_found' });
    },

    /** Deterministic by key; recorded in the book, first call under a key standing, so each payout can be counted. */
    async payout(request: PayoutRequest, book = ownBook): Promise<PayoutOutcome> {
      const move = await book.claimMove(payoutMove(request, await simulatedPayout(request)));
      return payoutOutcomeOf(move, request.destination.destinationType);
    },

    /** Deterministic by key; recorded in the book like a payout. The simulator never answers `pending`. */
    async refund(request: RefundRequest, book = ownBook): Promise<RefundOutcome> {
      const outcome = await simulatedRefund(request, chargeKind(request.chargeId) === 'refund_declined' ? REFUND_DECLINED_MESSAGE : null);
      if (outcome.status === 'pending') return outcome;
      return refundOutcomeOf(await book.claimMove(refundMove(request, outcome)));
    },

    async disputeNotice({ chargeId }) {
      const kind = chargeKind(chargeId);
      return kind && kind in DISPUTE_NOTICES ? { ...DISPUTE_NOTICES[kind as DisputedChargeKind] } : null;
    },

    async reviewDisputeEvidence(review) {
      return simulatedEvidenceDecision(review);
    },

    // The simulated network reads the submitted evidence from the database at its review: nothing to send,
    // and nobody else to tell that the merchant accepted.
    async submitDisputeEvidence() {},
    async acceptDispute() {},
  };
}

/**
 * Shared by the API (tokenize) and the worker. Its own book is in memory; the worker's activities charge,
 * refund and pay out through `simulatorWithBook(postgresChargeBook(orm))` (src/main/payment-processor.ts),
 * so their record survives a restart.
 */
export const simulatorProcessor = createSimulatorProcessor();

/**
 * `simulator` recording its charges in `book`. The methods are looked up on `simulator` at each call, so
 * a test's spy on the shared simulator still sees every charge.
 */
export function simulatorWithBook(book: SimulatorChargeBook, simulator: SimulatorProcessor = simulatorProcessor): PaymentProcessor {
  return {
    ...simulator,
    charge: (request) => simulator.charge(request, book),
    retrieveCharge: (charge) => simulator.retrieveCharge(charge, book),
    refund: (request) => simulator.refund(request, book),
    payout: (request) => simulator.payout(request, book),
  };
}
