import { Migration } from '@mikro-orm/migrations';

/** Webhook endpoints, their deliveries (one per event, endpoint and generation) and each attempt. */
export class Migration20261121040000_webhooks extends Migration {
  override name = 'Migration20261121040000_webhooks';

  override up(): void {
    this.addSql(`
      create table webhook_endpoints (
        id text primary key,
        business_id text not null references businesses (id),
        livemode boolean not null,
        url varchar(2048) not null check (url like 'https://%'),
        events jsonb not null check (jsonb_typeof(events) = 'array' and jsonb_array_length(events) > 0),
        enabled boolean not null default true,
        description varchar(256) null,
        secret_sealed text not null,
        previous_secret_sealed text null,
        previous_secret_expires_at timestamptz null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz null
      );`);
    this.addSql(`
      create index webhook_endpoints_list_idx on webhook_endpoints (business_id, livemode, created_at desc, id desc)
      where deleted_at is null;`);
    this.addSql(`
      create table webhook_deliveries (
        id text primary key,
        event_id text not null references events (id),
        endpoint_id text not null references webhook_endpoints (id),
        business_id text not null references businesses (id),
        livemode boolean not null,
        generation integer not null default 0 check (generation >= 0),
        status text not null check (status in ('pending', 'delivering', 'succeeded', 'failed')),
        body text not null,
        attempt_count integer not null default 0 check (attempt_count >= 0),
        last_status_code integer null,
        last_error text null,
        next_attempt_at timestamptz null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        completed_at timestamptz null,
        -- A fan-out re-run after a crash finds its deliveries already there and creates none twice.
        unique (event_id, endpoint_id, generation)
      );`);
    this.addSql(`create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, status);`);
    this.addSql(`
      create table webhook_attempts (
        id bigserial primary key,
        delivery_id text not null references webhook_deliveries (id),
        attempt_number integer not null check (attempt_number >= 1),
        attempted_at timestamptz not null,
        status_code integer null,
        duration_ms integer not null check (duration_ms >= 0),
        response_body text null,
        error text null,
        succeeded boolean not null,
        unique (delivery_id, attempt_number)
      );`);
  }

  override down(): void {
    this.addSql('drop table webhook_attempts, webhook_deliveries, webhook_endpoints;');
  }
}
