import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A session's charge at an acquirer that opens it first and confirms it after (Stripe: a PaymentIntent
 * created, then confirmed). Its id (`reference`) is recorded here before anything may confirm it, and a
 * lookup closes the key: a reference recorded before the close is the one the lookup asks the acquirer
 * about (and cancels when it was never confirmed); none recorded by then can never be, so its charge is
 * never confirmed. One row per session, its lock taken by whichever of the two comes first, so the two
 * cannot cross. That is what keeps `not_found` final for such an acquirer (docs/decisions.md, Payments).
 * The worker's steps run each statement on its own (a fresh EntityManager), as the simulator's book
 * does: the acquirer's record is not any service transaction's to roll back.
 */

interface ReferenceRow {
  reference: string | null;
  closed_at: Date | null;
}

/**
 * Records the acquirer's id for the session's charge unless the key was closed with none or holds one
 * already. Answers the reference that stands (the first recorded wins), or `closed`: the charge must not
 * be confirmed.
 */
export async function recordChargeReference(em: EntityManager, sessionId: string, reference: string): Promise<{ reference: string } | { closed: true }> {
  const inserted = await em.execute<ReferenceRow[]>(
    `insert into charge_references (session_id, reference) values (?, ?) on conflict (session_id) do nothing returning reference, closed_at`,
    [sessionId, reference],
  );
  const [standing] = inserted.length
    ? inserted
    : await em.execute<ReferenceRow[]>('select reference, closed_at from charge_references where session_id = ?', [sessionId]);
  return standing.reference ? { reference: standing.reference } : { closed: true };
}

/**
 * Closes the session's charge key, whatever comes later: answers the reference recorded before it (the
 * lookup asks the acquirer about that one), or null: none was, and none ever will be.
 */
export async function closeChargeKey(em: EntityManager, sessionId: string): Promise<string | null> {
  const [row] = await em.execute<ReferenceRow[]>(
    `insert into charge_references (session_id, closed_at) values (?, now())
     on conflict (session_id) do update set closed_at = coalesce(charge_references.closed_at, excluded.closed_at)
     returning reference, closed_at`,
    [sessionId],
  );
  return row.reference;
}

/** The session whose charge the acquirer knows by `reference` (a Stripe dispute names its PaymentIntent), or null. */
export async function sessionOfChargeReference(em: EntityManager, reference: string): Promise<string | null> {
  const [row] = await em.execute<{ session_id: string }[]>('select session_id from charge_references where reference = ?', [reference]);
  return row?.session_id ?? null;
}

/** The acquirer's id recorded for the session's charge, read without closing its key (a charge the browser confirms is read while it may still land). */
export async function chargeReferenceOf(em: EntityManager, sessionId: string): Promise<string | null> {
  const [row] = await em.execute<ReferenceRow[]>('select reference, closed_at from charge_references where session_id = ?', [sessionId]);
  return row?.reference ?? null;
}

/** The acquirer's id recorded for the session's charge while its key is open: none once a lookup closed it (the charge is being settled). */
export async function openChargeReferenceOf(em: EntityManager, sessionId: string): Promise<string | null> {
  const [row] = await em.execute<ReferenceRow[]>('select reference, closed_at from charge_references where session_id = ?', [sessionId]);
  return row && !row.closed_at ? row.reference : null;
}
