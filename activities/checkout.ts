import type { MikroORM } from '@mikro-orm/postgresql';

export interface CheckoutActivityDeps {
  orm: MikroORM;
}

export function createCheckoutActivities(deps: CheckoutActivityDeps) {
  return {
    /**
     * Cancels a session that is still `pending` at its expiry. Conditional on the status, so it is safe
     * to run twice and never touches a session that a payment already moved on.
     * Returns the session's status afterwards, or null when the session was never committed.
     */
    async expireSession(sessionId: string): Promise<string | null> {
      const rows = await deps.orm.em.getConnection().execute<{ status: string }[]>(
        `update checkout_sessions set status = 'cancelled', updated_at = now()
         where id = ? and status = 'pending' returning status`,
        [sessionId],
      );
      if (rows.length) return rows[0].status;
      const current = await deps.orm.em
        .getConnection()
        .execute<{ status: string }[]>('select status from checkout_sessions where id = ?', [sessionId]);
      return current[0]?.status ?? null;
    },
  };
}
export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
