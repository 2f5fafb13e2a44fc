import { createCheckoutActivities, type CheckoutActivityDeps } from './checkout.js';
import { createIdempotencyActivities } from './idempotency.js';

export type ActivityDeps = CheckoutActivityDeps;

/** Built once per worker process; workflows import only the type of this. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createCheckoutActivities(deps),
    ...createIdempotencyActivities(deps),
  };
}
export type Activities = ReturnType<typeof createActivities>;
