import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook recovery's window is a window of events (`since`/`until` on the event's time), so each delivery
 * carries its event's time, and failed deliveries are indexed by endpoint and that time: a narrow window
 * reads the failed deliveries of that window only. Before, the index was on the delivery's own time, which
 * bounds only the window's start (a re-sent delivery is created long after its event), so a window of
 * an hour still walked every failed delivery since `since`, up to 14 days of them, under the endpoint's lock.
 *
 * Rows already there get their event's time. A delivery inserted without it (by a process of the
 * release before, during a rolling deploy) gets it from its event, so the column is never null.
 */
export class Migration20261127021000_delivery_event_time extends Migration {
  override name = 'Migration20261127021000_delivery_event_time';

  override up(): void {
    this.addSql(`alter table webhook_deliveries add column if not exists event_created_at timestamptz;`);
    this.addSql(`update webhook_deliveries d set event_created_at = e.created_at from events e where e.id = d.event_id and d.event_created_at is null;`);
    this.addSql(`
      create function webhook_delivery_event_time() returns trigger language plpgsql as $$
      begin
        if new.event_created_at is null then
          new.event_created_at := (select created_at from events where id = new.event_id);
        end if;
        return new;
      end $$;`);
    this.addSql(`create trigger webhook_delivery_event_time before insert on webhook_deliveries
      for each row execute function webhook_delivery_event_time();`);
    this.addSql(`alter table webhook_deliveries alter column event_created_at set not null;`);
    this.addSql(`create index if not exists webhook_deliveries_failed_by_event_idx on webhook_deliveries (endpoint_id, event_created_at, id) where status = 'failed';`);
    this.addSql(`drop index if exists webhook_deliveries_failed_idx;`);
  }

  override down(): void {
    this.addSql(`create index if not exists webhook_deliveries_failed_idx on webhook_deliveries (endpoint_id, created_at, id) where status = 'failed';`);
    this.addSql(`drop index if exists webhook_deliveries_failed_by_event_idx;`);
    this.addSql(`drop trigger webhook_delivery_event_time on webhook_deliveries;`);
    this.addSql(`drop function webhook_delivery_event_time();`);
    this.addSql(`alter table webhook_deliveries drop column event_created_at;`);
  }
}
