import type { EntityManager } from '@mikro-orm/postgresql';

// An endpoint's pace lives on its row (`next_attempt_not_before`): the database owns it, the delivery
// workflows sleep until it. Every delivery to the endpoint takes its turn here before an attempt.

/** A turn: how long to wait first (0: go now), and when a throttled attempt that goes now began. */
export interface Turn {
  waitMs: number;
  /** The database's time the attempt began, the moment the throttle measures the next gap from; null without a throttle. */
  startedAt: Date | null;
}

/**
 * Before an attempt: how long this delivery must wait, 0 to go now. Without `turnTaken` it takes the
 * endpoint's next turn: the latest of now, the endpoint's not-before time (a reserved turn, a receiver's
 * Retry-After) and, with a `rateLimitPerSecond`, 1/rate s after the last attempt began; with a rate the
 * turn is reserved, moving not-before one interval past it, so concurrent deliveries get turns 1/rate s
 * apart (none lost: each turn is written before its delivery sleeps). With `turnTaken` (it slept until
 * its turn) only the gap to the last attempt is checked, since a turn kept late must not let the next one
 * follow it closely. Going now marks the attempt's start, in the same locked row, so two never pass together.
 */
export async function takeTurn(tx: EntityManager, deliveryId: string, turnTaken: boolean): Promise<Turn> {
  const [row] = await tx.execute<{ endpoint_id: string; rate: number | null; turn_ms: number; gap_ms: number; now: Date }[]>(
    `select e.id as endpoint_id, e.rate_limit_per_second as rate, now() as now,
       ceil(greatest(0, extract(epoch from (e.next_attempt_not_before - now())) * 1000))::float8 as turn_ms,
       ceil(greatest(0, extract(epoch from (e.last_attempt_started_at + make_interval(secs => 1.0 / e.rate_limit_per_second) - now())) * 1000))::float8 as gap_ms
     from webhook_endpoints e join webhook_deliveries d on d.endpoint_id = e.id
     where d.id = ? for no key update of e` /* not FOR UPDATE: a fan-out's delivery insert (KEY SHARE) need not wait */,
    [deliveryId],
  );
  if (!row) return { waitMs: 0, startedAt: null };
  const gapMs = Number(row.gap_ms ?? 0);
  const waitMs = turnTaken ? gapMs : Math.max(Number(row.turn_ms ?? 0), gapMs);
  if (row.rate && !turnTaken) {
    await tx.execute(
      `update webhook_endpoints set next_attempt_not_before = now() + make_interval(secs => (? + 1000.0 / rate_limit_per_second) / 1000.0) where id = ?`,
      [waitMs, row.endpoint_id],
      'run',
    );
  }
  if (waitMs > 0) {
    await tx.execute(
      `update webhook_deliveries set next_attempt_at = now() + make_interval(secs => ? / 1000.0), updated_at = now() where id = ? and status = 'pending'`,
      [waitMs, deliveryId],
      'run',
    );
    return { waitMs, startedAt: null };
  }
  if (!row.rate) return { waitMs: 0, startedAt: null };
  await tx.execute('update webhook_endpoints set last_attempt_started_at = now() where id = ?', [row.endpoint_id], 'run');
  return { waitMs: 0, startedAt: new Date(row.now) };
}

/** A receiver's Retry-After: no attempt to the endpoint before then (an earlier not-before is pushed back, never forward). */
export async function postponeEndpoint(tx: EntityManager, endpointId: string, delayMs: number): Promise<void> {
  await tx.execute(
    `update webhook_endpoints
     set next_attempt_not_before = greatest(coalesce(next_attempt_not_before, now()), now() + make_interval(secs => ? / 1000.0))
     where id = ?`,
    [delayMs, endpointId],
    'run',
  );
}
