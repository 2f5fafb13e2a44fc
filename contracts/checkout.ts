/**
 * The checkout workflow's contract: its start input, the `pay` update and the signals and query the service
 * and the workflow share. The service starts and messages the workflow through these alone (workflows/checkout.ts runs it).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { workflowContract } from './workflows.js';

export interface CheckoutWorkflowInput {
  sessionId: string;
  /** ISO 8601; the session is cancelled if it is still pending then. */
  expiresAt: string;
}

export type CheckoutWorkflowState = 'awaiting_payment' | 'paying' | 'expired' | 'closed';

/** The session was closed outside the workflow (the customer's cancel): its id, and its status then. */
export const sessionClosedSignal = defineSignal<[sessionId: string, status?: string]>('sessionClosed');
/**
 * Sent by the expiry sweep for a session left `processing` with no payment running that it can see: the
 * workflow settles it (`settlePaymentInDoubt`). Carries the session's id, which must be the workflow's own.
 */
export const settlePaymentSignal = defineSignal<[sessionId: string]>('settlePayment');
/**
 * The acquirer has news of the payment the customer confirms in the browser: Stripe's event
 * (`payment_intent.succeeded`, `payment_intent.payment_failed`), or the customer back at the page's
 * `return_url` after 3-D Secure. Carries the session's id; the workflow reads the charge itself.
 */
export const paymentIntentChangedSignal = defineSignal<[sessionId: string]>('paymentIntentChanged');
export const checkoutStateQuery = defineQuery<CheckoutWorkflowState>('status');

/** Where a paid order ships, as the customer entered it (the session's `shipping`). */
export interface ShippingAddress {
  addressLine1: string;
  addressLine2?: string | null;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

/** What the customer entered besides the card, and what the card's token told us about it. */
export interface PaymentDetails {
  customerName: string;
  /** Given when the customer changed the prefilled e-mail. */
  customerEmail?: string | null;
  /** Only when the session asks for shipping. */
  shipping?: ShippingAddress | null;
  /** Null when the card is collected in the browser at the acquirer, which this service never sees. */
  cardBrand: string | null;
  cardLast4: string | null;
}

/** What the API sends: the card's token (never the card) and the customer's details. */
export interface PayRequest extends PaymentDetails {
  /** The session it pays: the workflow refuses a pay that names another (absent in updates sent before it). */
  sessionId?: string;
  /** The card's token; empty when the customer confirms the payment in the browser (`browser`). */
  token: string;
  /**
   * Present when the card is collected and the charge confirmed in the customer's browser at the acquirer
   * (Stripe.js, live mode with ACQUIRER=stripe): the charge is opened and its secret handed to the page,
   * which confirms it and comes back to `returnUrl`. Absent: the card's token is charged here.
   */
  browser?: { returnUrl: string };
  /**
   * Names this pay call's attempt in the database (the session's `paymentAttemptId`), so the API can tell
   * whether its call is the one that paid, whatever its update's answer. Absent in updates sent before it.
   */
  attemptId?: string;
}

/**
 * `not_payable`: the session was no longer pending (another pay won, or it was cancelled), or another pay was
 * under way in the run: `behind` names that pay's attempt (absent in answers given before it), so the call
 * can tell one that will move the session from one its own call fenced off.
 */
export type PayResult =
  | { outcome: 'completed' | 'failed'; status: string }
  /** The charge is opened for the browser to confirm (`PayRequest.browser`); the session stays `processing`. */
  | { outcome: 'confirm'; status: 'processing'; clientSecret: string; returnUrl: string }
  | { outcome: 'not_payable'; status: string | null; behind?: string };

export const payUpdate = defineUpdate<PayResult, [PayRequest]>('pay');

/** The checkout workflow's shape, for a start through the SDK (`WithStartWorkflowOperation<CheckoutWorkflow>`). */
export type CheckoutWorkflow = (input: CheckoutWorkflowInput) => Promise<CheckoutWorkflowState>;
export const checkoutWorkflowContract = workflowContract<CheckoutWorkflow>('checkoutWorkflow');

/**
 * Sweep now, then plan afresh. Every worker sends it to the session expiry sweep (workflows/checkout-expiry.ts)
 * when it starts, so a deploy that changes SESSION_TTL takes effect at once rather than after the sleep
 * planned with the old one.
 */
export const sweepNowSignal = defineSignal('sweepNow');
/** The session expiry sweep: one per task queue, for ever (it continues as new). */
export const sessionExpiryWorkflowContract = workflowContract<() => Promise<never>>('sessionExpiryWorkflow');

/**
 * Said to the customer when the charge never happened: it kept failing, and the processor has no record of
 * it. Here, where the checkout workflow and the processor port both read it: one wording of it.
 */
export const PROCESSING_ERROR = {
  code: 'processing_error',
  message: 'An error occurred while processing your card. Try again in a little bit.',
} as const;
