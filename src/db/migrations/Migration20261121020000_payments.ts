import { Migration } from '@mikro-orm/migrations';

/** Payments: reserves held back from each payment, the processor's charge id, and rate-limit counters. */
export class Migration20261121020000_payments extends Migration {
  override name = 'Migration20261121020000_payments';

  override up(): void {
    // The simulator's charge id also carries its simulated refund behaviour; a real acquirer's is opaque.
    this.addSql(`alter table checkout_sessions add column processor_charge_id text null;`);
    // Held = reserve - consumed - released. Keeping the three apart, with the check below, means a refund
    // consuming a reserve and the release timer can never both take the same cents.
    this.addSql(`
      create table reserves (
        id text primary key,
        business_id text not null references businesses (id),
        livemode boolean not null,
        payment_id uuid not null unique references checkout_sessions (id),
        original_amount_in_cents bigint not null check (original_amount_in_cents > 0),
        reserve_amount_in_cents bigint not null check (reserve_amount_in_cents > 0),
        reserve_bps integer not null check (reserve_bps between 1 and 10000),
        consumed_amount_in_cents bigint not null default 0 check (consumed_amount_in_cents >= 0),
        released_amount_in_cents bigint not null default 0 check (released_amount_in_cents >= 0),
        status text not null check (status in ('active', 'partially_released', 'released', 'consumed')),
        release_at timestamptz not null,
        released_at timestamptz null,
        reserved_at timestamptz not null,
        updated_at timestamptz not null,
        check (consumed_amount_in_cents + released_amount_in_cents <= reserve_amount_in_cents)
      );`);
    this.addSql(`create index reserves_list_idx on reserves (business_id, livemode, reserved_at desc, id desc);`);
    this.addSql(`create index reserves_holding_idx on reserves (business_id, livemode, reserved_at, id)
      where status in ('active', 'partially_released');`);
    // rate-limiter-flexible's PostgreSQL store layout (src/http/rate-limit.ts), made here rather than at run time.
    this.addSql(`
      create table rate_limit_counters (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      );`);
  }

  override down(): void {
    this.addSql('drop table rate_limit_counters, reserves;');
    this.addSql('alter table checkout_sessions drop column processor_charge_id;');
  }
}
