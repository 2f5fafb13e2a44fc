import type { EntityManager } from '@mikro-orm/postgresql';
import type { SessionStatus } from './session.entity.js';

/** Sessions cancelled per statement: a backlog is swept in short statements, never one long lock. */
export const EXPIRY_BATCH = 500;
/** Batches one sweep runs before it hands back to its workflow (which comes back a second later). */
const MAX_BATCHES = 20;
/**
 * The longest the sweep sleeps. Sessions get their `expiresAt` from the API's SESSION_TTL and the sweep
 * plans with the worker's; should the two ever differ, a session still expires at most this late.
 */
export const MAX_SWEEP_SLEEP_MS = 5 * 60_000;

/**
 * When the sweep should next run: when the next pending session expires, and no later than a session
 * created now could (`now + ttl`), which matters when none is pending.
 */
export function nextSweepAt(now: Date, nextExpiry: Date | null, sessionTtlMs: number): Date {
  const latest = now.getTime() + Math.min(sessionTtlMs, MAX_SWEEP_SLEEP_MS);
  return new Date(nextExpiry ? Math.min(nextExpiry.getTime(), latest) : latest);
}

/** A pending session whose `expiresAt` has passed can no longer be paid, even before the sweep reaches it. */
export const isPastExpiry = (session: { status: string; expiresAt: Date }, now = new Date()) =>
  session.status === 'pending' && session.expiresAt.getTime() <= now.getTime();

/**
 * Cancels one session if it is still pending and past its `expiresAt`. Conditional, so it never touches a
 * session a payment or a cancel moved first. Returns the session's status afterwards (null: no session).
 */
export async function expireSession(em: EntityManager, sessionId: string, now = new Date()): Promise<SessionStatus | null> {
  const rows = await em.getConnection().execute<{ status: SessionStatus }[]>(
    `update checkout_sessions set status = 'cancelled', updated_at = ?
     where id = ? and status = 'pending' and expires_at <= ? returning status`,
    [now, sessionId, now],
  );
  if (rows.length) return rows[0].status;
  const current = await em.getConnection().execute<{ status: SessionStatus }[]>('select status from checkout_sessions where id = ?', [sessionId]);
  return current[0]?.status ?? null;
}

/**
 * One sweep: every pending session past its `expiresAt` becomes `cancelled`, a batch at a time (rows a
 * payment holds are skipped; the payment moves them on). Returns how many, and when to sweep next.
 */
export async function sweepExpiredSessions(em: EntityManager, sessionTtlMs: number): Promise<{ expired: number; nextSweepAt: Date }> {
  const connection = em.getConnection();
  let expired = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const now = new Date();
    const rows = await connection.execute(
      `with due as (
         select id from checkout_sessions where status = 'pending' and expires_at <= ?
         order by expires_at limit ? for update skip locked)
       update checkout_sessions s set status = 'cancelled', updated_at = ? from due where s.id = due.id returning s.id`,
      [now, EXPIRY_BATCH, now],
    );
    expired += rows.length;
    // A full batch may have left more behind: come back at once rather than after the next expiry.
    if (rows.length === EXPIRY_BATCH && batch === MAX_BATCHES - 1) return { expired, nextSweepAt: now };
    if (rows.length < EXPIRY_BATCH) break;
  }
  const [next] = await connection.execute<{ expires_at: Date }[]>(
    `select expires_at from checkout_sessions where status = 'pending' order by expires_at limit 1`,
  );
  return { expired, nextSweepAt: nextSweepAt(new Date(), next ? new Date(next.expires_at) : null, sessionTtlMs) };
}
