import type { MikroORM } from '@mikro-orm/postgresql';
import { expireSession, sweepExpiredSessions } from '../src/modules/checkout/expiry.rules.js';

export interface CheckoutActivityDeps {
  orm: MikroORM;
  /** SESSION_TTL: bounds how long the expiry sweep sleeps when no session is pending. */
  sessionTtlMs: number;
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

    /** One run of the expiry sweep; the ISO time of the next one goes back to its workflow. */
    async expireDueSessions(): Promise<{ expired: number; nextSweepAt: string }> {
      const { expired, nextSweepAt } = await sweepExpiredSessions(deps.orm.em.fork(), deps.sessionTtlMs);
      return { expired, nextSweepAt: nextSweepAt.toISOString() };
    },
  };
}
export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
