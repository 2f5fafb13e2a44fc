import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { sweepExpiredSessions, handOverPaymentsInDoubt, nextInDoubtCheckAt } from '../src/modules/checkout/index.js';

export interface SessionSweepActivityDeps {
  orm: MikroORM;
  /** SESSION_TTL: bounds how long the expiry sweep sleeps when no session is pending. */
  sessionTtlMs: number;
  log?: Logger;
}

/**
 * The expiry sweep's one step, apart from the checkout workflow's activities: handing a payment in doubt
 * over writes a message that names the checkout workflow, and that workflow must not reach it back
 * through the type of its own activities.
 */
export function createSessionSweepActivities(deps: SessionSweepActivityDeps) {
  return {
    /**
     * One run of the expiry sweep: every pending session past its `expiresAt` cancelled, and every session
     * left `processing` too long handed to its checkout workflow to settle (its owner, should its run be
     * gone). The ISO time of the next run goes back to the sweep's workflow.
     */
    async expireDueSessions(): Promise<{ expired: number; nextSweepAt: string }> {
      const { expired, nextSweepAt } = await sweepExpiredSessions(deps.orm.em.fork(), deps.sessionTtlMs);
      await handOverPaymentsInDoubt(deps.orm.em.fork(), deps.log);
      const inDoubtCheck = await nextInDoubtCheckAt(deps.orm.em.fork());
      const next = inDoubtCheck && inDoubtCheck < nextSweepAt ? inDoubtCheck : nextSweepAt;
      return { expired, nextSweepAt: next.toISOString() };
    },
  };
}
export type SessionSweepActivities = ReturnType<typeof createSessionSweepActivities>;
