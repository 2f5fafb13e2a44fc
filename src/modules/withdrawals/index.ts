/**
 * What other code uses of the withdrawals module (withdrawals and their methods): the rest is the module's
 * own, and eslint.config.js refuses an import of it from outside (docs/architecture.md, "A module's face").
 */
export { destinationSchema, parseDestination } from './destination.rules.js';
export type { Destination } from './destination.rules.js';
export { withdrawalsEntities } from './entities.js';
export type { WithdrawalMethod } from './withdrawal-method.entity.js';
export { addWithdrawalMethod, listWithdrawalMethods, removeWithdrawalMethod } from './withdrawal-method.service.js';
export { Withdrawal } from './withdrawal.entity.js';
export { completeWithdrawal, failWithdrawal, startWithdrawalProcessing } from './withdrawal.lifecycle.js';
export { withdrawalOperations } from './withdrawal.routes.js';
export { withdrawalEventPayloads } from './withdrawal.schemas.js';
export { withdrawalView } from './withdrawal.view.js';
