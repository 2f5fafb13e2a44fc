import { Migration } from '@mikro-orm/migrations';

/** Businesses, their keys and payout methods; checkout sessions; events and the outbox. */
export class Migration20261121000000_foundation extends Migration {
  override name = 'Migration20261121000000_foundation';

  override up(): void {
    this.addSql(`
      create table businesses (
        id text primary key,
        name text not null,
        approved boolean not null default false,
        fee_bps integer not null check (fee_bps between 0 and 10000),
        fee_fixed_cents integer not null check (fee_fixed_cents >= 0),
        reserve_bps integer not null check (reserve_bps between 0 and 10000),
        reserve_hold_ms bigint not null check (reserve_hold_ms >= 0),
        rate_limit_tier text not null check (rate_limit_tier in ('standard', 'growth', 'enterprise')),
        rate_limit_per_minute integer null,
        rate_limit_burst integer null,
        created_at timestamptz not null
      );`);
    this.addSql(`
      create table api_keys (
        id text primary key,
        business_id text not null references businesses (id),
        mode text not null check (mode in ('live', 'test')),
        scope text not null check (scope in ('full', 'read_only')),
        prefix text not null,
        secret_hash text not null unique,
        created_at timestamptz not null,
        revoked_at timestamptz null
      );`);
    this.addSql(`create index api_keys_business_idx on api_keys (business_id);`);
    this.addSql(`
      create table withdrawal_methods (
        id text primary key,
        business_id text not null references businesses (id),
        destination_type text not null check (destination_type in ('wallet', 'crypto')),
        details jsonb not null,
        created_at timestamptz not null
      );`);
    this.addSql(`create index withdrawal_methods_business_idx on withdrawal_methods (business_id);`);
    this.addSql(`
      create table checkout_sessions (
        id uuid primary key,
        business_id text not null references businesses (id),
        livemode boolean not null,
        user_id text not null,
        status text not null check (status in ('pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded')),
        currency text not null default 'USD',
        subtotal bigint not null check (subtotal > 0),
        fee bigint not null check (fee >= 0),
        total bigint not null check (total = subtotal + fee),
        description varchar(256) not null,
        customer_email text not null,
        ask_shipping boolean not null default false,
        success_url varchar(256) null,
        cancel_url varchar(256) null,
        failure_url varchar(256) null,
        metadata jsonb not null,
        expires_at timestamptz not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        completed_at timestamptz null,
        customer_name text null,
        shipping jsonb null,
        card_brand text null,
        card_last4 text null,
        failure_code text null,
        failure_message text null
      );`);
    this.addSql(`create index checkout_sessions_list_idx on checkout_sessions (business_id, livemode, created_at desc, id desc);`);
    this.addSql(`
      create table session_items (
        id text primary key,
        session_id uuid not null references checkout_sessions (id),
        position integer not null,
        name varchar(100) not null,
        description varchar(256) null,
        price bigint not null check (price > 0),
        quantity integer not null check (quantity > 0),
        image_url varchar(256) null,
        subtotal bigint not null check (subtotal = price * quantity)
      );`);
    this.addSql(`create index session_items_session_idx on session_items (session_id, position);`);
    this.addSql(`
      create table events (
        id text primary key,
        business_id text not null references businesses (id),
        livemode boolean not null,
        type text not null,
        payload jsonb not null,
        created_at timestamptz not null
      );`);
    this.addSql(`create index events_list_idx on events (business_id, livemode, created_at desc, id desc);`);
    this.addSql(`
      create table outbox (
        id bigserial primary key,
        message jsonb not null,
        created_at timestamptz not null,
        dispatched_at timestamptz null,
        attempts integer not null default 0,
        claimed_until timestamptz null,
        last_error text null
      );`);
    this.addSql(`create index outbox_pending_idx on outbox (id) where dispatched_at is null;`);
  }

  override down(): void {
    this.addSql('drop table outbox, events, session_items, checkout_sessions, withdrawal_methods, api_keys, businesses;');
  }
}
