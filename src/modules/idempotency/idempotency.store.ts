import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/** The spec's Limits: keys are cached for 24 hours. */
export const KEY_TTL_SECONDS = 24 * 3600;

/**
 * How long an in-progress claim keeps a key. The claim and the effect are separate transactions, so a
 * process that dies mid-request leaves an `in_progress` row with no effect behind it (the effect's
 * transaction never committed). Without a lease that key would answer 409 for 24 hours. After the
 * lease a repeat of the same request may take the key over. That is safe even if the first request was
 * only slow, not dead: the answer is stored by a conditional update on the claim's token inside the
 * effect's transaction, so the loser's transaction fails and rolls its effect back. 60 s is well above
 * any request's duration (database and Temporal calls time out sooner) and short enough for a client's
 * retry schedule.
 */
export const LEASE_SECONDS = 60;

export interface Scope {
  businessId: string;
  livemode: boolean;
  key: string;
}

export type ClaimResult =
  | { kind: 'claimed'; token: string }
  | { kind: 'replay'; status: number; body: string }
  /** `retryAfterSeconds`: what the claim holding the key has left (ceil, at least 1): when a retry can take it over or find its answer. */
  | { kind: 'in_progress'; retryAfterSeconds: number }
  | { kind: 'mismatch' };

interface StoredRow {
  state: 'in_progress' | 'completed';
  fingerprint: string;
  response_status: number | null;
  response_body: string | null;
  lease_left: number;
}

/**
 * Claims a key for one request in its own short transaction. The primary key makes concurrent claims
 * of one key race on a single row: exactly one inserts (or takes over an expired row), the rest read it.
 */
export async function claimKey(orm: MikroORM, scope: Scope, request: string, fingerprint: string): Promise<ClaimResult> {
  const em = orm.em.fork();
  const token = randomUUID();
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await em.execute<{ lease_token: string }[]>(
      `insert into idempotency_keys as k
         (business_id, livemode, key, request, fingerprint, state, lease_token, locked_until, created_at, expires_at)
       values (?, ?, ?, ?, ?, 'in_progress', ?, now() + make_interval(secs => ?), now(), now() + make_interval(secs => ?))
       on conflict (business_id, livemode, key) do update set
         request = excluded.request, fingerprint = excluded.fingerprint, state = 'in_progress',
         lease_token = excluded.lease_token, locked_until = excluded.locked_until, created_at = excluded.created_at,
         expires_at = excluded.expires_at, response_status = null, response_body = null
       where k.expires_at <= now()
          or (k.state = 'in_progress' and k.locked_until <= now() and k.fingerprint = excluded.fingerprint)
       returning lease_token`,
      [scope.businessId, scope.livemode, scope.key, request, fingerprint, token, LEASE_SECONDS, KEY_TTL_SECONDS],
    );
    if (claimed[0]?.lease_token === token) return { kind: 'claimed', token };
    const [row] = await em.execute<StoredRow[]>(
      `select state, fingerprint, response_status, response_body,
         greatest(1, ceil(extract(epoch from locked_until - now())))::int as lease_left
       from idempotency_keys where business_id = ? and livemode = ? and key = ?`,
      [scope.businessId, scope.livemode, scope.key],
    );
    if (!row) continue; // released or purged between the two statements: claim again
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.state === 'completed') return { kind: 'replay', status: row.response_status!, body: row.response_body! };
    return { kind: 'in_progress', retryAfterSeconds: row.lease_left };
  }
  // Three races lost in a row (a key claimed and released over and over): a second is as good as any.
  return { kind: 'in_progress', retryAfterSeconds: 1 };
}

/**
 * What the claim now holding a key has left, in whole seconds (at least 1), read in `em`'s transaction:
 * for the 409 of a request whose claim was taken over while it ran.
 */
export async function leaseLeft(em: EntityManager, scope: Scope): Promise<number> {
  const [row] = await em.execute<{ lease_left: number }[]>(
    `select greatest(1, ceil(extract(epoch from locked_until - now())))::int as lease_left
     from idempotency_keys where business_id = ? and livemode = ? and key = ?`,
    [scope.businessId, scope.livemode, scope.key],
  );
  return row?.lease_left ?? 1;
}

/**
 * Stores the answer in `em`'s transaction, so it commits exactly when the effect does. Returns false
 * when the claim is no longer this request's (its lease was taken over); the caller must then fail
 * the transaction.
 */
export async function storeAnswer(em: EntityManager, scope: Scope, token: string, status: number, body: string): Promise<boolean> {
  const result = await em.execute<{ affectedRows: number }>(
    `update idempotency_keys set state = 'completed', response_status = ?, response_body = ?, locked_until = now()
     where business_id = ? and livemode = ? and key = ? and lease_token = ? and state = 'in_progress'`,
    [status, body, scope.businessId, scope.livemode, scope.key, token],
    'run',
  );
  return result.affectedRows === 1;
}

/** Gives the key back after a request that made no effect (any error), so the client can retry with it. */
export async function releaseKey(orm: MikroORM, scope: Scope, token: string): Promise<void> {
  await orm.em
    .fork()
    .execute(
      `delete from idempotency_keys where business_id = ? and livemode = ? and key = ? and lease_token = ? and state = 'in_progress'`,
      [scope.businessId, scope.livemode, scope.key, token],
      'run',
    );
}

/** Deletes keys past their 24 hours, a batch at a time so one run never holds a long lock. */
export async function purgeExpiredKeys(orm: MikroORM, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await orm.em.fork().execute<{ affectedRows: number }>(
      `delete from idempotency_keys where ctid in (
         select ctid from idempotency_keys where expires_at <= now() limit ?)`,
      [batch],
      'run',
    );
    total += result.affectedRows;
    if (result.affectedRows < batch) return total;
  }
}
