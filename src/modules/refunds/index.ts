/**
 * What other code uses of the refunds module (refunds, their lifecycle and their share of reserves): the
 * rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export { refundsEntities } from './entities.js';
export { Refund } from './refund.entity.js';
export { completeRefund, failCompletedRefund, failRefund, startRefundProcessing } from './refund.lifecycle.js';
export { hasStandingRefund } from './refund.queries.js';
export { refundOperations } from './refund.routes.js';
export { refundEventPayloads } from './refund.schemas.js';
export { refundView } from './refund.view.js';
