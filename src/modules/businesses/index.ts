/**
 * What other code uses of the businesses module (businesses, their API keys, authentication and the key's
 * rate limit, `Caller`): the rest is the module's own, and eslint.config.js refuses an import of it from
 * outside (docs/architecture.md, "A module's face").
 */
export { apiKeyRateLimits } from './api-key-rate-limit.middleware.js';
export { createApiKeyCache } from './api-key.cache.js';
export type { ApiKeyCache } from './api-key.cache.js';
export { hashApiKey } from './api-key.crypto.js';
export { createAuthFailures } from './auth-failures.middleware.js';
export { authenticate, authorize, callerOf } from './auth.middleware.js';
export type { KnownKey } from './auth.middleware.js';
export { Business, RATE_LIMIT_TIERS } from './business.entity.js';
export {
  DEMO_BUSINESS,
  approveBusiness,
  createApiKey,
  createBusiness,
  listBusinesses,
  revokeApiKey,
  updateBusinessTerms,
} from './business.service.js';
export type { IssuedKey } from './business.service.js';
export type { Caller } from './caller.js';
export { businessesEntities } from './entities.js';
