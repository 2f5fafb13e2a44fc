import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes that make each list filter and order read a page, not a business's history:
 * - a status filter walks its status only, newest first (sessions, refunds, reserves; withdrawals have
 *   theirs): a rare status is otherwise found by walking past every row of the others (the released
 *   reserves past ninety days of active ones);
 * - the event log's type filter, likewise;
 * - the reserve summary's next release is the first holding reserve by release time;
 * - a session search (`ILIKE '%…%'` on e-mail and description) goes through trigram indexes (pg_trgm),
 *   with the business and mode in the same GIN index (btree_gin), instead of every row of the business;
 *   a search for a whole e-mail address through the customer's address (`lower(customer_email)`);
 * - the retention rules take the oldest events, and the oldest dispatched outbox rows, first.
 * On a large existing database, build them first with `create index concurrently` (docs/decisions.md,
 * Costs that stay flat); this migration then finds nothing to do for them.
 */
export class Migration20261126030000_history_indexes extends Migration {
  override name = 'Migration20261126030000_history_indexes';

  override up(): void {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create extension if not exists btree_gin;`);
    this.addSql(`create index if not exists checkout_sessions_status_list_idx on checkout_sessions (business_id, livemode, status, created_at desc, id desc);`);
    this.addSql(`create index if not exists reserves_status_list_idx on reserves (business_id, livemode, status, reserved_at desc, id desc);`);
    this.addSql(`create index if not exists refunds_status_list_idx on refunds (business_id, livemode, status, created_at desc, id desc);`);
    this.addSql(`create index if not exists events_type_list_idx on events (business_id, livemode, type, created_at desc, id desc);`);
    this.addSql(`create index if not exists reserves_release_idx on reserves (business_id, livemode, release_at) where status in ('active', 'partially_released');`);
    this.addSql(`create index if not exists checkout_sessions_email_idx on checkout_sessions (business_id, livemode, lower(customer_email));`);
    this.addSql(`create index if not exists events_created_idx on events (created_at);`);
    this.addSql(`create index if not exists outbox_dispatched_idx on outbox (dispatched_at) where dispatched_at is not null;`);
    this.addSql(`create index if not exists checkout_sessions_search_idx on checkout_sessions
      using gin (business_id, livemode, customer_email gin_trgm_ops, description gin_trgm_ops);`);
  }

  override down(): void {
    this.addSql(`drop index checkout_sessions_email_idx, reserves_status_list_idx, outbox_dispatched_idx, events_created_idx, checkout_sessions_search_idx, reserves_release_idx, events_type_list_idx, refunds_status_list_idx, checkout_sessions_status_list_idx;`);
  }
}
