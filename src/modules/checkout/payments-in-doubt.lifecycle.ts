import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { OutboxEntry } from '../outbox/index.js';
import { settlePaymentMessage } from './payment.start.js';

/**
 * How long a session stays `processing` before the expiry sweep hands it to its checkout workflow to
 * settle. A payment's first step and its charge take seconds, so a minute is already unusual, and the
 * sweep must also reach a payment whose open run will not look for it: one whose update a Temporal restart
 * lost after its first step committed, in a run that had heard other pays (and so never checks after 30 s),
 * with no call told `processing` to ask for the settling (the seeded fault schedule left one so for ten
 * minutes). A run still paying ignores the hand-over, so an early one costs a signal, nothing more.
 */
export const IN_DOUBT_HAND_OVER_MS = 60_000;
/** Sessions handed over per sweep: the sweep comes back within minutes for the rest. */
const HAND_OVER_BATCH = 100;
/** How soon the sweep comes back while any session is `processing`, to hand it over in time if need be. */
export const IN_DOUBT_RECHECK_MS = 30_000;

/**
 * When the sweep should next run for payments in doubt: within IN_DOUBT_RECHECK_MS while any session is
 * `processing` (the partial index on them makes it one short read), else not on their account (null). So
 * the sweep keeps its five-minute sleep when nothing is being paid, and a lost payment is handed over
 * within about IN_DOUBT_HAND_OVER_MS + IN_DOUBT_RECHECK_MS of its first step.
 */
export async function nextInDoubtCheckAt(em: EntityManager, now = new Date()): Promise<Date | null> {
  const [row] = await em.getConnection().execute<{ any: boolean }[]>(`select exists(select 1 from checkout_sessions where status = 'processing') as any`);
  return row?.any ? new Date(now.getTime() + IN_DOUBT_RECHECK_MS) : null;
}

/**
 * Finds sessions left `processing` for longer than IN_DOUBT_HAND_OVER_MS and writes, for each, an outbox
 * row that signals (and if need be starts) its checkout workflow to settle it. A payment legitimately
 * still running (a processor lookup retried through an outage) is signalled too, harmlessly: a workflow
 * paying the session ignores the signal. Returns the sessions handed over.
 */
export async function handOverPaymentsInDoubt(em: EntityManager, log?: Logger, olderThanMs = IN_DOUBT_HAND_OVER_MS): Promise<string[]> {
  const rows = await em.getConnection().execute<{ id: string; business_id: string; livemode: boolean; total: string; expires_at: Date }[]>(
    `select id, business_id, livemode, total, expires_at from checkout_sessions
     where status = 'processing' and updated_at < now() - make_interval(secs => ?)
       -- A charge the customer confirms in the browser (no card seen here, so no brand) is awaited, not in
       -- doubt: its workflow settles it at the session's expiry. Past that it is in doubt like any other.
       and (card_brand is not null or expires_at < now())
     order by updated_at limit ?`,
    [olderThanMs / 1000, HAND_OVER_BATCH],
  );
  if (!rows.length) return [];
  await em.transactional(async (tx) => {
    for (const row of rows) {
      const session = { id: row.id, businessId: row.business_id, livemode: row.livemode, total: Number(row.total), expiresAt: new Date(row.expires_at) };
      tx.create(OutboxEntry, { message: settlePaymentMessage(session) });
    }
  });
  log?.warn({ sessionIds: rows.map((r) => r.id) }, `${rows.length} payment(s) in processing for over ${Math.round(olderThanMs / 60_000)} minutes handed to their checkout workflows to settle`);
  return rows.map((r) => r.id);
}
