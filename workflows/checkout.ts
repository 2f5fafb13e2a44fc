import { allHandlersFinished, condition, defineQuery, defineSignal, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/checkout.js';
import { payUpdate, runPayment, type PayResult } from './checkout-payment.js';
import { PaymentStatus } from '../contracts/search-attributes.js';

export { payUpdate, type PayRequest, type PayResult } from './checkout-payment.js';

export interface CheckoutWorkflowInput {
  sessionId: string;
  /** ISO 8601; the session is cancelled if it is still pending then. */
  expiresAt: string;
}

export type CheckoutWorkflowState = 'awaiting_payment' | 'paying' | 'expired' | 'closed';

export const sessionClosedSignal = defineSignal<[status: string]>('sessionClosed');
export const checkoutStateQuery = defineQuery<CheckoutWorkflowState>('status');

const { expireSession } = proxyActivities<CheckoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One per checkout session (`checkout-<session id>`). Owns the session's clock (a session still pending
 * at `expiresAt` becomes `cancelled`) and runs its payment (the `pay` update), so a payment finishes
 * even if the API that asked for it dies. The database stays the truth; every step is conditional on it.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<CheckoutWorkflowState> {
  let state: CheckoutWorkflowState = 'awaiting_payment';
  let closed = false;
  let payment: Promise<PayResult> | null = null;
  setHandler(checkoutStateQuery, () => state);
  setHandler(sessionClosedSignal, () => {
    closed = true;
  });
  setHandler(payUpdate, async (request) => {
    // A second pay while one is under way is answered at once; the database would refuse it anyway.
    if (payment) return { outcome: 'not_payable', status: 'processing' };
    state = 'paying';
    payment = runPayment(input.sessionId, request);
    const result = await payment;
    if (result.outcome === 'not_payable') {
      payment = null;
      state = 'awaiting_payment';
    } else {
      closed = true;
    }
    return result;
  });

  const remaining = Math.max(1, Date.parse(input.expiresAt) - Date.now());
  const closedInTime = await condition(() => closed, remaining);
  if (!closedInTime) {
    const status = await expireSession(input.sessionId);
    // While a payment is under way, it reports the status itself when it ends.
    if (status && !payment) upsertSearchAttributes([{ key: PaymentStatus, value: status }]);
    if (status === 'cancelled') state = 'expired';
  }
  // A payment under way when the session expired still runs to its end before the workflow closes.
  await condition(allHandlersFinished);
  if (state !== 'expired') state = 'closed';
  return state;
}
