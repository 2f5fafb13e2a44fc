import { condition, defineQuery, defineSignal, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { PaymentStatus } from './search-attributes.js';

export interface CheckoutWorkflowInput {
  sessionId: string;
  /** ISO 8601; the session is cancelled if it is still pending then. */
  expiresAt: string;
}

export type CheckoutWorkflowState = 'awaiting_payment' | 'expired' | 'closed';

export const sessionClosedSignal = defineSignal<[status: string]>('sessionClosed');
export const checkoutStateQuery = defineQuery<CheckoutWorkflowState>('status');

const { expireSession } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One per checkout session (`checkout-<session id>`). Owns the session's clock: a session still pending
 * at `expiresAt` becomes `cancelled`. The database stays the truth; the expiry is conditional on it.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<CheckoutWorkflowState> {
  let state: CheckoutWorkflowState = 'awaiting_payment';
  let closed = false;
  setHandler(checkoutStateQuery, () => state);
  setHandler(sessionClosedSignal, () => {
    closed = true;
  });

  const remaining = Math.max(1, Date.parse(input.expiresAt) - Date.now());
  const closedInTime = await condition(() => closed, remaining);
  if (closedInTime) {
    state = 'closed';
    return state;
  }
  const status = await expireSession(input.sessionId);
  if (status) upsertSearchAttributes([{ key: PaymentStatus, value: status }]);
  state = status === 'cancelled' ? 'expired' : 'closed';
  return state;
}
