import type { MikroORM } from '@mikro-orm/postgresql';
import type { RetentionBatch, RetentionRuleName } from '../../../contracts/retention.js';

/** Rows one batch deletes at most: one short transaction, however far behind the rule is. */
export const RETENTION_BATCH = 5_000;

/**
 * Each rule as one statement that deletes a batch (the oldest first) and says how many went. Events go
 * with their deliveries and attempts, in the order their foreign keys need, in one statement; an event
 * whose delivery is still being tried, or whose fan-out has not been dispatched, stays.
 */
const STATEMENTS: Record<RetentionRuleName, string> = {
  events: `with doomed as (
      select e.id from events e
      where e.created_at < ?
        and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status in ('pending', 'delivering'))
        and not exists (select 1 from outbox o where o.dispatched_at is null and o.message ->> 'eventId' = e.id)
      order by e.created_at limit ${RETENTION_BATCH}
      for update of e skip locked),
    attempts as (delete from webhook_attempts a using webhook_deliveries d, doomed
                 where a.delivery_id = d.id and d.event_id = doomed.id returning 1),
    deliveries as (delete from webhook_deliveries d using doomed where d.event_id = doomed.id returning 1),
    events as (delete from events e using doomed where e.id = doomed.id returning 1)
    select count(*)::int as deleted from events`,
  outbox: `with doomed as (
      select id from outbox where dispatched_at < ? order by dispatched_at limit ${RETENTION_BATCH} for update skip locked),
    gone as (delete from outbox o using doomed where o.id = doomed.id returning 1)
    select count(*)::int as deleted from gone`,
};

/** One batch of a rule. `more`: the batch was full, so older rows may remain. Safe to run twice. */
export async function applyRetention(orm: MikroORM, batch: RetentionBatch): Promise<{ deleted: number; more: boolean }> {
  const [{ deleted }] = await orm.em.fork().getConnection().execute<{ deleted: number }[]>(STATEMENTS[batch.rule], [new Date(batch.before)]);
  return { deleted, more: deleted === RETENTION_BATCH };
}
