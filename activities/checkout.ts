import type { MikroORM } from '@mikro-orm/postgresql';
import { expireSession } from '../src/modules/checkout/index.js';

export interface CheckoutActivityDeps {
  orm: MikroORM;
}

export function createCheckoutActivities(deps: CheckoutActivityDeps) {
  return {
    /**
     * Cancels a session still `pending` at its expiry (its checkout workflow's timer). Conditional on the
     * status and the time, so it is safe to run twice and never touches a session a payment moved on.
     * Returns the session's status afterwards, or null when the session was never committed.
     */
    async expireSession(sessionId: string): Promise<string | null> {
      return expireSession(deps.orm.em.fork(), sessionId);
    },
  };
}
export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
