import type { EntityManager } from '@mikro-orm/postgresql';
import { hotQuery } from '../../db/hot-query.js';

/**
 * A webhook delivery's state transitions, as its attempts ask for them (delivery-attempt.service.ts,
 * delivery-send.service.ts): `pending` → `delivering` (an attempt claimed) → `succeeded`, back to
 * `pending` (a failed attempt with attempts left, its next time set), or `failed`. Each is one statement,
 * conditional on the delivery's current status, so a repeated call moves nothing twice.
 */

/** A delivery claimed for an attempt, with what its POST needs. */
export interface ClaimedDelivery {
  body: string;
  event_id: string;
  endpoint_id: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** One attempt's row in `webhook_attempts`, as the POST left it. */
export interface AttemptRecord {
  deliveryId: string;
  attemptNumber: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
}

const INSERT_ATTEMPT = `
  insert into webhook_attempts (delivery_id, attempt_number, attempted_at, status_code, duration_ms, response_body, error, succeeded)
  values (?, ?, ?, ?, ?, ?, ?, ?)
  on conflict (delivery_id, attempt_number) do nothing`;

const attemptRow = (a: AttemptRecord, succeeded: boolean) => [
  a.deliveryId, a.attemptNumber, a.attemptedAt, a.statusCode, a.durationMs, a.responseBody, a.error, succeeded,
];

const claimSql = (unpacedOnly: boolean) => `
  update webhook_deliveries d set status = 'delivering', attempt_count = $2, next_attempt_at = null, updated_at = now()
  from webhook_endpoints e
  where d.id = any($1::text[]) and e.id = d.endpoint_id and d.status in ('pending', 'delivering') and d.attempt_count < $2
    and e.enabled and e.deleted_at is null
    ${unpacedOnly ? 'and e.rate_limit_per_second is null and (e.next_attempt_not_before is null or e.next_attempt_not_before <= now())' : ''}
  returning d.id, d.body, d.event_id, d.endpoint_id, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at`;
const CLAIM = { paced: claimSql(false), unpaced: claimSql(true) };

/**
 * `pending` (or `delivering`: an attempt whose worker died mid-request left it so) → `delivering` for
 * attempt `attemptNumber`, for each of `deliveryIds` whose attempt has not been claimed before
 * (`attempt_count < n`) and whose endpoint is enabled and not deleted; with `unpacedOnly`, only when the
 * endpoint also has no throttle and no Retry-After in force. One statement for them all, prepared once per
 * connection (`hotQuery`): an event's fan-out claims its deliveries' first attempts in one round trip and
 * one commit. The claimed ones, by id; a delivery absent was not claimed.
 */
export async function claimAttempts(em: EntityManager, deliveryIds: readonly string[], attemptNumber: number, unpacedOnly: boolean): Promise<Map<string, ClaimedDelivery>> {
  const rows = await hotQuery<ClaimedDelivery & { id: string }>(
    em,
    unpacedOnly ? 'delivery-claim-unpaced' : 'delivery-claim',
    unpacedOnly ? CLAIM.unpaced : CLAIM.paced,
    [deliveryIds, attemptNumber],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** One delivery's attempt, claimed as `claimAttempts` does; undefined when it was not claimed. */
export async function claimAttempt(em: EntityManager, deliveryId: string, attemptNumber: number, unpacedOnly: boolean): Promise<ClaimedDelivery | undefined> {
  return (await claimAttempts(em, [deliveryId], attemptNumber, unpacedOnly)).get(deliveryId);
}

/**
 * Where a delivery stands once attempt `attemptNumber` has been claimed (undefined if it has not): its
 * status, the wait a recorded failure set (ms, by the database's clock), and how long since its last move.
 */
export async function attemptStanding(em: EntityManager, deliveryId: string, attemptNumber: number) {
  const [row] = await em.execute<{ status: string; wait_ms: number | null; age_ms: number }[]>(
    `select status, ceil(greatest(0, extract(epoch from (next_attempt_at - now())) * 1000))::float8 as wait_ms,
       floor(greatest(0, extract(epoch from (now() - updated_at)) * 1000))::float8 as age_ms
     from webhook_deliveries where id = ? and attempt_count >= ?`,
    [deliveryId, attemptNumber],
  );
  return row && { status: row.status, waitMs: row.wait_ms === null ? null : Number(row.wait_ms), ageMs: Number(row.age_ms) };
}

/** `succeeded`: the attempt, the delivery and the endpoint's failure streak ended, in one statement. */
export async function recordDelivered(em: EntityManager, attempt: AttemptRecord, endpointId: string): Promise<void> {
  await em.execute(
    `with attempt as (${INSERT_ATTEMPT}),
       delivery as (
         update webhook_deliveries set status = 'succeeded', last_status_code = ?, last_error = null, next_attempt_at = null,
           completed_at = ?, updated_at = now()
         where id = ? and status = 'delivering')
     update webhook_endpoints set failing_since = null where id = ? and failing_since is not null`,
    [...attemptRow(attempt, true), attempt.statusCode, new Date(), attempt.deliveryId, endpointId],
    'run',
  );
}

/**
 * A failed attempt, in the caller's transaction: back to `pending` with its next attempt `nextAttemptInMs`
 * from now, or `failed` when that is null (no attempts left).
 */
export async function recordFailedAttempt(tx: EntityManager, attempt: AttemptRecord, nextAttemptInMs: number | null): Promise<void> {
  await tx.execute(INSERT_ATTEMPT, attemptRow(attempt, false), 'run');
  const now = new Date();
  const pending = nextAttemptInMs !== null;
  await tx.execute(
    `update webhook_deliveries set status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?,
       completed_at = ?, updated_at = now()
     where id = ? and status = 'delivering'`,
    [pending ? 'pending' : 'failed', attempt.statusCode, attempt.error, pending ? new Date(now.getTime() + nextAttemptInMs) : null, pending ? null : now, attempt.deliveryId],
    'run',
  );
}

/** `failed` without a POST: its endpoint was disabled or deleted while it waited. */
export async function stopForEndpoint(em: EntityManager, deliveryId: string): Promise<void> {
  await em.execute(
    `update webhook_deliveries d set status = 'failed', next_attempt_at = null, completed_at = now(), updated_at = now(),
       last_error = case when e.deleted_at is not null then 'Endpoint deleted' else 'Endpoint disabled' end
     from webhook_endpoints e
     where d.id = ? and e.id = d.endpoint_id and d.status in ('pending', 'delivering')`,
    [deliveryId],
    'run',
  );
}

/** After the last attempt: `failed`, unless something already finished it. */
export async function failDelivery(em: EntityManager, deliveryId: string): Promise<void> {
  await em.execute(
    `update webhook_deliveries set status = 'failed', next_attempt_at = null, completed_at = now(), updated_at = now()
     where id = ? and status in ('pending', 'delivering')`,
    [deliveryId],
    'run',
  );
}
