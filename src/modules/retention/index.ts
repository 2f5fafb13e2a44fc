/**
 * What other code uses of the retention module (the batches that delete records past their retention): the
 * rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export { applyRetention } from './retention.service.js';
