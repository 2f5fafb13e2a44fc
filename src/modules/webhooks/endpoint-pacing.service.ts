import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * An endpoint's pace lives on its row (`next_attempt_not_before`): the database owns it, the delivery
 * workflows sleep until it. Every delivery to the endpoint takes its turn here before an attempt.
 */

/**
 * Takes the endpoint's next turn for this delivery: the later of now and the endpoint's not-before
 * time. With a `rateLimitPerSecond`, the turn is reserved, moving not-before one interval past it, so
 * concurrent deliveries get turns 1/rate s apart (none lost: each one's turn is written before it
 * sleeps). Returns how long to wait for it, 0 to go now; and notes the wait on the delivery.
 */
export async function takeTurn(tx: EntityManager, deliveryId: string): Promise<number> {
  const [row] = await tx.execute<{ endpoint_id: string; rate: number | null; wait_ms: number }[]>(
    `select e.id as endpoint_id, e.rate_limit_per_second as rate,
       ceil(greatest(0, extract(epoch from (e.next_attempt_not_before - now())) * 1000))::float8 as wait_ms
     from webhook_endpoints e join webhook_deliveries d on d.endpoint_id = e.id
     where d.id = ? for update of e`,
    [deliveryId],
  );
  if (!row) return 0;
  if (row.rate) {
    await tx.execute(
      `update webhook_endpoints set next_attempt_not_before = greatest(now(), coalesce(next_attempt_not_before, now())) + make_interval(secs => 1.0 / ?)
       where id = ?`,
      [row.rate, row.endpoint_id],
      'run',
    );
  }
  const waitMs = Number(row.wait_ms);
  if (waitMs > 0) {
    await tx.execute(
      `update webhook_deliveries set next_attempt_at = now() + make_interval(secs => ? / 1000.0), updated_at = now() where id = ? and status = 'pending'`,
      [waitMs, deliveryId],
      'run',
    );
  }
  return waitMs;
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
