/** Every workflow the worker runs. Deterministic code only: no I/O, no activity values. */
export { checkoutWorkflow } from './checkout.js';
export { sessionExpiryWorkflow } from './checkout-expiry.js';
export { purgeIdempotencyKeysWorkflow } from './idempotency.js';
export { withdrawalWorkflow } from './withdrawals.js';
export { refundWorkflow } from './refunds.js';
export { webhookDeliveryWorkflow } from './webhooks.js';
export { reserveReleaseWorkflow } from './reserves.js';
export { disputeWorkflow } from './disputes.js';
export { retentionWorkflow } from './retention.js';
