/**
 * What other code uses of the idempotency module (the `Idempotency-Key` middleware, its header schema and
 * its store): the rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export { idempotency, idempotencyKeys } from './idempotency.middleware.js';
export { idempotencyKeyHeader } from './idempotency.schemas.js';
export { purgeExpiredKeys } from './idempotency.store.js';
