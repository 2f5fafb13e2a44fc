import type Stripe from 'stripe';
import { DECLINE_MESSAGES, type ChargeLookup, type DeclineCode } from '../processor/index.js';

/**
 * How a Stripe PaymentIntent reads as the port's charge. The connector opens one intent per session
 * (created unconfirmed, its id recorded, then confirmed), with automatic capture: a confirmed card
 * payment ends `succeeded` or back at `requires_payment_method` with the decline in `last_payment_error`.
 */

/** Stripe's decline codes (`decline_code`, else the error's `code`) in the spec's four; anything else is `card_declined`. */
const DECLINES: Record<string, DeclineCode> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  processing_error: 'processing_error',
  card_declined: 'card_declined',
  generic_decline: 'card_declined',
};

export function declineOf(error: { code?: string | null; decline_code?: string | null } | null | undefined): { status: 'declined'; code: DeclineCode; message: string } {
  const code = DECLINES[error?.decline_code ?? ''] ?? DECLINES[error?.code ?? ''] ?? 'card_declined';
  return { status: 'declined', code, message: DECLINE_MESSAGES[code] };
}

/**
 * What an intent says of the charge, and what the connector must do first for that to be final:
 * - `succeeded`: charged; its id (the intent's) is the charge's.
 * - `requires_payment_method` after a confirmation: declined (the intent is cancelled, so nothing can
 *   confirm it again).
 * - `requires_confirmation` (never confirmed), or `requires_payment_method` with no attempt: no charge, and
 *   the intent is cancelled before `not_found` is answered, so none can land afterwards.
 * - `requires_action` at a lookup: authentication (3-D Secure) left unfinished. A charge the browser
 *   confirms waits for it (`readBrowserCharge`, stripe-browser-charges.ts) until the session's expiry,
 *   whose lookup lands here: declined, the intent cancelled, so it cannot complete afterwards.
 * - `canceled`: no charge, and none can come.
 * - `processing`, `requires_capture`: not settled yet; ask again.
 */
export type IntentReading =
  | { settled: ChargeLookup; cancelFirst: boolean }
  | { settled: null; reason: string };

export function readIntent(intent: Pick<Stripe.PaymentIntent, 'id' | 'status' | 'last_payment_error'>): IntentReading {
  switch (intent.status) {
    case 'succeeded':
      return { settled: { status: 'succeeded', chargeId: intent.id }, cancelFirst: false };
    case 'requires_payment_method':
      return intent.last_payment_error
        ? { settled: declineOf(intent.last_payment_error), cancelFirst: true }
        : { settled: { status: 'not_found' }, cancelFirst: true };
    case 'requires_confirmation':
      return { settled: { status: 'not_found' }, cancelFirst: true };
    case 'requires_action':
      return { settled: declineOf({ code: 'card_declined' }), cancelFirst: true };
    case 'canceled':
      return { settled: { status: 'not_found' }, cancelFirst: false };
    default:
      return { settled: null, reason: `PaymentIntent ${intent.id} is ${intent.status}` };
  }
}
