import type { ApiKeyScope } from './api-key.entity.js';
import type { Business } from './business.entity.js';

/**
 * Who is calling: every resource read or written belongs to this business and mode. The HTTP edge makes
 * one from the API key (auth.middleware.ts); services take it as a parameter.
 */
export interface Caller {
  businessId: string;
  livemode: boolean;
  keyId: string;
  scope: ApiKeyScope;
  business: Business;
}
