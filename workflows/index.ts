/** Every workflow the worker runs. Deterministic code only: no I/O, no activity values. */
export { checkoutWorkflow } from './checkout.js';
export { sessionExpiryWorkflow } from './session-expiry.js';
export { purgeIdempotencyKeysWorkflow } from './idempotency-purge.js';
export { withdrawalWorkflow } from './withdrawal.js';
export { refundWorkflow } from './refund.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
export { reserveReleaseWorkflow } from './reserve-release.js';
