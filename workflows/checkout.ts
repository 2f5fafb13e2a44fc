import { allHandlersFinished, condition, patched, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/checkout.js';
import { IN_DOUBT_CHECK_MS, runPayment, settleBrowserCharge, settleBrowserChargeAtExpiry, settlePaymentInDoubt } from './checkout-payment.js';
import {
  checkoutStateQuery,
  payUpdate,
  paymentIntentChangedSignal,
  sessionClosedSignal,
  settlePaymentSignal,
  type CheckoutWorkflowInput,
  type CheckoutWorkflowState,
  type PayRequest,
} from '../contracts/checkout.js';
import { PaymentStatus } from '../contracts/search-attributes.js';

const { expireSession } = proxyActivities<CheckoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One per checkout session (`checkout-<session id>`), from its first pay. Owns the session's clock (a
 * session still pending at `expiresAt` becomes `cancelled`) and its payment (the `pay` update), so a
 * payment finishes even if the API that asked for it dies, and every payment it begins ends.
 *
 * A pay's update lives only in the server's memory until the workflow task that accepts it completes,
 * while its first step (`beginPayment`, a local activity) commits `pending → processing` inside that task:
 * a server restarted in between leaves a session in `processing` that no run of this workflow knows of.
 * So the workflow owns that case too: when a pay it runs finds the session in `processing` with nobody
 * paying it here, when no pay has arrived by IN_DOUBT_CHECK_MS after it started (it is started by one), when
 * the expiry sweep signals it, and at `expiresAt`, it settles the payment in doubt from the processor's
 * record of its charge. The database stays the truth; every step is conditional on it.
 *
 * A payment the customer confirms in the browser (Stripe.js: `PayRequest.browser`) is answered with the
 * charge's secret while the session stays `processing` (`confirming`); its end is the acquirer's, read here
 * each time it has news (`paymentIntentChanged`: its event, the customer's return), or settled at
 * `expiresAt` when the customer never comes back. Meanwhile it is no payment in doubt, and no other pay runs.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<CheckoutWorkflowState> {
  // Runs begun before this patch neither check a message's session nor settle payments in doubt.
  const owner = patched('payment-in-doubt');
  let state: CheckoutWorkflowState = 'awaiting_payment';
  let closed = false;
  let payment: Promise<unknown> | null = null;
  // The attempt of the pay under way, named to a pay refused behind it.
  let payingAttempt: string | undefined;
  // Every pay this run has heard, by its attempt: the one whose attempt is in doubt resumes it (`settle`).
  const heard = new Map<string, PayRequest>();
  let paysArrived = 0;
  let inDoubt = false;
  // A charge handed to the customer's browser to confirm (Stripe.js): the session is `processing` with its
  // owner here, waiting for the acquirer's news (`intentNews`) or the session's expiry, so it is no payment
  // in doubt, and no other pay runs meanwhile.
  let confirming = false;
  let intentNews = false;
  const ours = (sessionId: string | undefined) => !owner || sessionId === input.sessionId;

  setHandler(checkoutStateQuery, () => state);
  setHandler(sessionClosedSignal, (sessionId) => {
    if (ours(sessionId)) closed = true;
  });
  setHandler(settlePaymentSignal, (sessionId) => {
    if (ours(sessionId)) inDoubt = true;
  });
  setHandler(paymentIntentChangedSignal, (sessionId) => {
    if (sessionId === input.sessionId) intentNews = true;
  });
  setHandler(
    payUpdate,
    async (request) => {
      paysArrived++;
      if (owner && request.attemptId) heard.set(request.attemptId, request);
      // A second pay while one is under way is answered at once; the database would refuse it anyway.
      if (payment || confirming) return { outcome: 'not_payable', status: 'processing', behind: payingAttempt };
      state = 'paying';
      payingAttempt = request.attemptId;
      const result = await (payment = runPayment(input.sessionId, request));
      payment = null;
      // Handed to the browser: the attempt stays the one under way until the acquirer says how it ended.
      if (result.outcome === 'confirm') confirming = true;
      else payingAttempt = undefined;
      if (result.outcome === 'confirm') return result;
      if (result.outcome !== 'not_payable') closed = true;
      else {
        state = 'awaiting_payment';
        // Nobody pays the session here, yet it is `processing`: an attempt whose update this run never heard.
        if (owner && result.status === 'processing') inDoubt = true;
      }
      return result;
    },
    {
      validator: (request) => {
        if (!ours(request.sessionId)) throw new Error(`This pay names session ${request.sessionId ?? '(none)'}, not ${input.sessionId}`);
      },
    },
  );

  if (owner) {
    // Started by a pay whose update comes with the start: none by now means it was lost with the server.
    if (!(await condition(() => paysArrived > 0 || closed || inDoubt, IN_DOUBT_CHECK_MS))) inDoubt = true;
    await settleUntilClosedOrExpired();
  } else {
    await condition(() => closed, remainingMs());
  }
  if (!closed) {
    const status = await expireSession(input.sessionId);
    if (status === 'processing' && confirming && !payment) await settleAtExpiry();
    else if (status === 'processing' && owner && !payment) await settle();
    // While a payment is under way, it reports the status itself when it ends.
    else if (status && !payment) upsertSearchAttributes([{ key: PaymentStatus, value: status }]);
    if (status === 'cancelled') state = 'expired';
  }
  // A payment under way when the session expired still runs to its end before the workflow closes.
  await condition(allHandlersFinished);
  if (state !== 'expired') state = 'closed';
  return state;

  function remainingMs(): number {
    return Math.max(1, Date.parse(input.expiresAt) - Date.now());
  }

  /** Settles every payment in doubt that comes up, until the session is closed or its `expiresAt`. */
  async function settleUntilClosedOrExpired(): Promise<void> {
    while (await condition(() => closed || (!payment && (confirming ? intentNews : inDoubt)), remainingMs())) {
      if (closed) return;
      if (confirming) await readBrowserCharge();
      else await settle();
    }
  }

  /** The acquirer has news of the charge the browser confirms: read it, and close the session if it ended. */
  async function readBrowserCharge(): Promise<void> {
    intentNews = false;
    const read = settleBrowserCharge(input.sessionId);
    payment = read;
    const result = await read;
    payment = null;
    if (result.outcome !== 'pending') end(result);
  }

  async function settleAtExpiry(): Promise<void> {
    const settled = settleBrowserChargeAtExpiry(input.sessionId);
    payment = settled;
    end(await settled);
  }

  function end(result: { outcome: string; status: string | null }): void {
    confirming = false;
    payingAttempt = undefined;
    payment = null;
    closed = result.outcome !== 'not_payable' || result.status !== 'pending';
    if (closed) state = 'closed';
  }

  async function settle(): Promise<void> {
    inDoubt = false;
    state = 'paying';
    const found = await (payment = settlePaymentInDoubt(input.sessionId, owner ? (attemptId) => heard.has(attemptId) : undefined));
    // The pay that began it reached this run: its attempt carries on; its call reads the outcome from the database.
    const resumed = found.outcome === 'resume';
    const result = resumed ? await (payment = runPayment(input.sessionId, heard.get(found.attemptId)!)) : found;
    payment = null;
    if (result.outcome !== 'not_payable') closed = true;
    else {
      state = 'awaiting_payment';
      // Resumed, yet the session is processing by another attempt: that one is in doubt in its turn.
      if (resumed && result.status === 'processing') inDoubt = true;
    }
  }
}
