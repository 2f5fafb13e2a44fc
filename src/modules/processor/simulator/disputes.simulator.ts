import type { AcquirerDisputeNotice, EvidenceReview, Outcome } from '../processor.port.js';

/**
 * The simulator as the acquirer and the card network for disputes (`PaymentProcessor.disputeNotice`,
 * `reviewDisputeEvidence`). Its test cards pay, and then the acquirer reports a dispute of the charge;
 * the network decides evidence by Stripe's test phrases. A real acquirer reports disputes later through
 * its own channel (Stripe's webhook events, src/modules/stripe/), or an operator enters them with
 * `npm run admin -- dispute open`.
 */

/** The charge kinds that carry a dispute notice (charges.simulator.ts reads them from the card's token). */
export const DISPUTE_NOTICES = {
  chargeback_fraudulent: { reason: 'fraudulent', inquiry: false },
  chargeback_product_not_received: { reason: 'product_not_received', inquiry: false },
  inquiry_fraudulent: { reason: 'fraudulent', inquiry: true },
} as const satisfies Record<string, AcquirerDisputeNotice>;
export type DisputedChargeKind = keyof typeof DISPUTE_NOTICES;

export const WINNING_EVIDENCE = 'winning_evidence';
export const LOSING_EVIDENCE = 'losing_evidence';

/**
 * The network's decision on submitted evidence: any field containing `losing_evidence` loses (it wins
 * over `winning_evidence` in the same evidence: the network decides against doubtful evidence), one
 * containing `winning_evidence` wins, anything else stays under review until an operator enters the
 * acquirer's decision.
 */
export function simulatedEvidenceDecision({ evidence }: Pick<EvidenceReview, 'evidence'>): Outcome | null {
  const texts = Object.values(evidence).filter((text): text is string => typeof text === 'string');
  if (texts.some((text) => text.includes(LOSING_EVIDENCE))) return 'lost';
  if (texts.some((text) => text.includes(WINNING_EVIDENCE))) return 'won';
  return null;
}
