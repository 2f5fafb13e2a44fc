import { ActivityFailure, defineUpdate, proxyActivities, setCurrentDetails, upsertSearchAttributes, uuid4 } from '@temporalio/workflow';
import type { ChargeOutcome, PaymentActivities, PaymentDetails } from '../activities/payment.js';
import { PaymentStatus } from './search-attributes.js';

/** What the API sends: the card's token (never the card) and the customer's details. */
export interface PayRequest extends PaymentDetails {
  token: string;
}

/** `not_payable`: the session was no longer pending (another pay won, or it was cancelled). */
export type PayResult =
  | { outcome: 'completed' | 'failed'; status: string }
  | { outcome: 'not_payable'; status: string | null };

export const payUpdate = defineUpdate<PayResult, [PayRequest]>('pay');

/** Said to the customer when the processor keeps failing transiently (Stripe's processing_error). */
export const PROCESSING_ERROR = {
  code: 'processing_error',
  message: 'An error occurred while processing your card. Try again in a little bit.',
} as const;

const { beginPayment, completePayment, failPayment } = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

// A transient processor fault is retried a few times, quickly: the customer is waiting on the page.
// If it persists the payment fails as processing_error rather than leaving the session hanging.
const { chargeCard } = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 4 },
});

function step(status: string, details: string) {
  upsertSearchAttributes([{ key: PaymentStatus, value: status }]);
  setCurrentDetails(details);
}

/**
 * One payment attempt of a session, run inside its checkout workflow so it finishes even if the API
 * that asked for it dies. The database decides who pays: only the call that moves the session from
 * pending to processing charges the card.
 */
export async function runPayment(sessionId: string, request: PayRequest): Promise<PayResult> {
  const { token, ...details } = request;
  // Names this attempt in the database, so a retried beginPayment knows the move it made (deterministic:
  // the workflow's seeded random).
  const begun = await beginPayment(sessionId, details, uuid4());
  if (!begun.started) return { outcome: 'not_payable', status: begun.status };
  step('processing', `Charging the ${details.cardBrand} card ending ${details.cardLast4}`);

  let charge: ChargeOutcome;
  try {
    charge = await chargeCard(sessionId, token);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    charge = { status: 'declined', ...PROCESSING_ERROR };
  }

  if (charge.status === 'succeeded') {
    setCurrentDetails(`Charge ${charge.chargeId} succeeded; recording the payment in the ledger`);
    const done = await completePayment(sessionId, charge.chargeId);
    step(done.status, done.reserveId ? `Paid; reserve ${done.reserveId} held until its release` : 'Paid');
    return { outcome: 'completed', status: done.status };
  }
  setCurrentDetails(`Declined: ${charge.code}; marking the session failed`);
  const done = await failPayment(sessionId, { code: charge.code, message: charge.message });
  step(done.status, `Payment failed: ${charge.message}`);
  return { outcome: 'failed', status: done.status };
}
