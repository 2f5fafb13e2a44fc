import { Migration } from '@mikro-orm/migrations';

/** Idempotency keys: one row per (business, mode, key), holding the first request's answer for 24 hours. */
export class Migration20261121050000_platform extends Migration {
  override name = 'Migration20261121050000_platform';

  override up(): void {
    this.addSql(`
      create table idempotency_keys (
        business_id text not null references businesses (id),
        livemode boolean not null,
        key varchar(255) not null,
        request text not null,
        fingerprint text not null,
        state text not null check (state in ('in_progress', 'completed')),
        lease_token uuid not null,
        locked_until timestamptz not null,
        response_status integer null,
        -- text, not jsonb: a replay returns the first answer byte for byte, key order included
        response_body text null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        primary key (business_id, livemode, key),
        check ((state = 'completed') = (response_status is not null and response_body is not null))
      );`);
    this.addSql(`create index idempotency_keys_expires_idx on idempotency_keys (expires_at);`);
  }

  override down(): void {
    this.addSql('drop table idempotency_keys;');
  }
}
