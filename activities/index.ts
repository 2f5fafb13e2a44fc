import { createCheckoutActivities, type CheckoutActivityDeps } from './checkout.js';
import { createIdempotencyActivities } from './idempotency.js';
import { createPaymentActivities, type PaymentActivityDeps } from './checkout-payment.js';
import { createReserveActivities } from './reserves.js';
import { createRetentionActivities } from './retention.js';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks.js';
import { createRefundActivities, type RefundActivityDeps } from './refunds.js';
import { createWithdrawalActivities, type WithdrawalActivityDeps } from './withdrawals.js';
import { createDisputeActivities } from './disputes.js';
import { createSessionSweepActivities, type SessionSweepActivityDeps } from './session-sweep.js';

export type ActivityDeps = CheckoutActivityDeps & SessionSweepActivityDeps & PaymentActivityDeps & WithdrawalActivityDeps & RefundActivityDeps & WebhookActivityDeps;

/** Built once per worker process; workflows import only the type of this. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createCheckoutActivities(deps),
    ...createPaymentActivities(deps),
    ...createSessionSweepActivities(deps),
    ...createReserveActivities(deps),
    ...createIdempotencyActivities(deps),
    ...createRetentionActivities(deps),
    ...createWithdrawalActivities(deps),
    ...createRefundActivities(deps),
    ...createWebhookActivities(deps),
    ...createDisputeActivities(deps),
  };
}
export type Activities = ReturnType<typeof createActivities>;
