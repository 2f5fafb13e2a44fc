import { ActivityFailure, condition, patched, proxyActivities, proxyLocalActivities, setCurrentDetails, sleep, upsertSearchAttributes, uuid4 } from '@temporalio/workflow';
import type { ChargeLookup, PaymentActivities } from '../activities/checkout-payment.js';
import { PROCESSING_ERROR, type PayRequest, type PayResult } from '../contracts/checkout.js';
import { PaymentStatus } from '../contracts/search-attributes.js';


const databaseSteps = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumInterval: '1 minute' } } as const;
const remoteSteps = proxyActivities<PaymentActivities>(databaseSteps);
// As local activities: one marker each inside the workflow task, no task-queue round trip while the
// customer waits (workflows/refunds.ts says why that is as durable).
const localSteps = proxyLocalActivities<PaymentActivities>(databaseSteps);

// A transient processor fault is retried a few times, quickly: the customer is waiting on the page. The
// idempotency key (the session id) makes a retry safe. If the fault persists, the outcome is unknown.
const { chargeCard, openBrowserPayment } = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 4 },
});

// An unknown outcome is not a decline: the customer may have been charged. The processor is asked for
// its record of the charge until it answers, with backoff held durably by this workflow and no limit:
// a session left `processing` (visible by its PaymentStatus search attribute) is better than a charged
// session shown as failed.
const lookUpOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
} as const;
const { lookUpCharge, settlePayment, settleBrowserPayment } = proxyActivities<PaymentActivities>(lookUpOptions);

/**
 * How long after its start a checkout workflow asks whether a payment is in doubt when no pay has reached
 * it: it is started by a pay, whose update comes with the start unless the server lost it.
 */
export const IN_DOUBT_CHECK_MS = 30_000;
/**
 * The least time a session has been `processing` before a payment in doubt is settled. Settling closes the
 * charge's key at the processor, so a charge still on its way would be refused rather than land (never
 * both): this leaves a charge that an earlier run began (one an operator terminated) its first try, its
 * start-to-close timeout, to land and be found.
 */
export const SETTLE_AFTER_MS = 30_000;

/** Runs from before this patch settle a payment in doubt even when the pay that began it reaches them. */
export const IN_DOUBT_PAY_RESUMES_PATCH = 'in-doubt-pay-resumes';

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
  const { token, attemptId: callAttemptId, sessionId: _named, ...details } = request;
  // Payments begun before this patch scheduled the three database steps as activities and replay that way.
  const { beginPayment, completePayment, failPayment } = patched('local-database-steps') ? localSteps : remoteSteps;
  // Names this attempt in the database, so a retried beginPayment knows the move it made. The pay call's
  // own id (a redelivered update carries it again), so its API can tell it paid even when its update's
  // answer is lost; before this patch, an id from the workflow's seeded random.
  const attemptId = patched('pay-call-attempt-id') && callAttemptId ? callAttemptId : uuid4();
  const begun = await beginPayment(sessionId, details, attemptId);
  if (!begun.started) return { outcome: 'not_payable', status: begun.status };
  let charge: ChargeLookup;
  try {
    if (request.browser) {
      step('processing', 'Opening the charge for the customer to confirm in the browser (Stripe.js)');
      const opened = await openBrowserPayment(sessionId, request.browser.returnUrl);
      // Handed to the page; the checkout workflow waits for the acquirer's word (`settleBrowserCharge`).
      if (opened.status === 'opened') return { outcome: 'confirm', status: 'processing', clientSecret: opened.clientSecret, returnUrl: opened.returnUrl };
      charge = opened;
    } else {
      step('processing', `Charging the ${details.cardBrand} card ending ${details.cardLast4}`);
      charge = await chargeCard(sessionId, token);
    }
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    // Versioned: a payment whose charge had already failed under the old code (which declined at once)
    // must replay that way; every new one looks the charge up. Deprecate once no such history is open.
    if (patched('unknown-charge-lookup')) {
      setCurrentDetails('The processor gave no answer; looking the charge up by the session id');
      charge = await lookUpCharge(sessionId);
    } else {
      charge = { status: 'declined', ...PROCESSING_ERROR };
    }
  }
  // The processor has no charge under the key (and a lookup closes it): the charge never happened.
  if (charge.status === 'not_found') charge = { status: 'declined', ...PROCESSING_ERROR };
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

/**
 * What settling a payment in doubt came to. `resume`: the pay that began it has reached this run after all
 * (its update delivered again after the task that first ran it was lost, with its first step already
 * committed), so its attempt carries on (`runPayment`) instead of being settled.
 */
export type SettleResult = PayResult | { outcome: 'resume'; attemptId: string };

/**
 * A payment in doubt: the session is `processing`, but no pay this run is running began it (its update
 * was lost with a restarted server after its first step committed, or the run that paid it was
 * terminated). Settled from the processor's record of the session's charge, looked up by its idempotency
 * key (the session id), which the lookup closes: a charge found completes the payment; none fails it with
 * `processing_error`, and none can land afterwards, so the customer is never charged for a failed session.
 * Nothing to settle when the session is not `processing` (`not_payable`, with its status). `heard` says
 * whether this run holds the pay of an attempt: the one in doubt, heard before or while it waits, resumes.
 */
export async function settlePaymentInDoubt(sessionId: string, heard?: (attemptId: string) => boolean): Promise<SettleResult> {
  const doubt = await localSteps.paymentInDoubt(sessionId);
  if (doubt.status !== 'processing') return { outcome: 'not_payable', status: doubt.status };
  const attemptId = doubt.attemptId;
  const ownPayHeard = () => heard !== undefined && attemptId !== null && heard(attemptId);
  // Versioned where it takes effect: only a run that resumes an attempt records the patch, so a payment
  // that goes well keeps its history as it was, and a run from before the patch replays its settling.
  const resume = (): SettleResult | null => (ownPayHeard() && patched(IN_DOUBT_PAY_RESUMES_PATCH) ? { outcome: 'resume', attemptId: attemptId! } : null);
  const resumedAtOnce = resume();
  if (resumedAtOnce) return resumedAtOnce;
  step('processing', `Payment attempt ${attemptId ?? '(unnamed)'} is in processing and no pay in this workflow runs it; settling it from the processor's record of the charge`);
  if (doubt.processingForMs < SETTLE_AFTER_MS) {
    // The delay's timer is the one a run from before the patch started; the pay's arrival only races it.
    const delay = sleep(SETTLE_AFTER_MS - doubt.processingForMs);
    await (heard ? Promise.race([delay, condition(ownPayHeard)]) : delay);
    // Asked again whichever came first: a pay delivered in the task that fires the timer is heard too.
    const resumed = resume();
    if (resumed) return resumed;
    await delay;
  }
  const settled = await settlePayment(sessionId);
  step(settled.status, settled.chargeId ? `Settled: charge ${settled.chargeId} found; the payment is recorded` : `Settled: ${settled.status} (${settled.reason})`);
  if (settled.status === 'completed' || settled.status === 'failed') return { outcome: settled.status, status: settled.status };
  return { outcome: 'not_payable', status: settled.status };
}

/**
 * A charge the customer confirms in the browser, read at the acquirer when it has news of it (Stripe's event,
 * the customer's return from 3-D Secure): the session completed or failed as it says, or left `processing`
 * while the customer may still confirm or authenticate (`pending`: the workflow waits for more news or the
 * session's expiry, `settleBrowserChargeAtExpiry`).
 */
export async function settleBrowserCharge(sessionId: string): Promise<PayResult | { outcome: 'pending' }> {
  const read = await settleBrowserPayment(sessionId);
  if (read.outcome === 'pending') return { outcome: 'pending' };
  step(read.status, `The charge confirmed in the browser came to ${read.status}`);
  if (read.outcome === 'completed' || read.outcome === 'failed') return { outcome: read.outcome, status: read.status };
  return { outcome: 'not_payable', status: read.status };
}

/**
 * The customer never came back (never confirmed, or left 3-D Secure unfinished) by the session's expiry:
 * the charge is settled as a payment in doubt is, its key closed and the intent cancelled unless it
 * succeeded meanwhile (then the payment completes), so nothing can be charged for a failed session.
 */
export async function settleBrowserChargeAtExpiry(sessionId: string): Promise<PayResult> {
  setCurrentDetails('The session expired with the charge still open in the browser; cancelling it at the acquirer');
  const settled = await settlePayment(sessionId);
  step(settled.status, `Settled at expiry: ${settled.status} (${settled.reason})`);
  if (settled.status === 'completed' || settled.status === 'failed') return { outcome: settled.status, status: settled.status };
  return { outcome: 'not_payable', status: settled.status };
}
