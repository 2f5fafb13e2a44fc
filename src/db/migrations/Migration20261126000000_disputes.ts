import { Migration } from '@mikro-orm/migrations';

/**
 * Disputes: one per checkout session at most, what funded a chargeback (and which reserves gave to it),
 * each business's dispute fee, and `available` allowed below zero: a chargeback the balance cannot cover
 * leaves the business owing the rest. No other move may take `available` below zero; `ledger verify`
 * holds that (the negative part is never more than what chargebacks left owing), since the database
 * alone cannot tell a chargeback's posting from any other.
 */
export class Migration20261126000000_disputes extends Migration {
  override name = 'Migration20261126000000_disputes';

  override up(): void {
    this.addSql(`alter table businesses add column dispute_fee_cents integer not null default 1500 check (dispute_fee_cents >= 0);`);
    this.addSql(`alter table balances drop constraint balances_available_check;`);
    this.addSql(`
      create table disputes (
        id text primary key,
        business_id text not null references businesses (id),
        livemode boolean not null,
        checkout_session_id uuid not null unique references checkout_sessions (id),
        amount_in_cents bigint not null check (amount_in_cents > 0),
        fee_in_cents bigint not null check (fee_in_cents >= 0),
        reason text not null check (reason in
          ('fraudulent', 'product_not_received', 'product_unacceptable', 'duplicate', 'credit_not_processed', 'subscription_canceled', 'general')),
        status text not null check (status in
          ('warning_needs_response', 'warning_under_review', 'warning_closed', 'needs_response', 'under_review', 'won', 'lost')),
        evidence jsonb not null,
        evidence_due_by timestamptz not null,
        submitted_at timestamptz null,
        closed_at timestamptz null,
        reminded_at timestamptz null,
        from_available_in_cents bigint null check (from_available_in_cents >= 0),
        from_reserves_in_cents bigint null check (from_reserves_in_cents >= 0),
        owed_in_cents bigint null check (owed_in_cents >= 0),
        created_at timestamptz not null,
        updated_at timestamptz not null,
        -- An inquiry moves no money; a chargeback says how its amount and fee were paid, to the cent.
        check ((status like 'warning_%') = (from_available_in_cents is null)),
        check ((from_available_in_cents is null) = (from_reserves_in_cents is null) and (from_reserves_in_cents is null) = (owed_in_cents is null)),
        check (from_available_in_cents is null or from_available_in_cents + from_reserves_in_cents + owed_in_cents = amount_in_cents + fee_in_cents),
        check ((status in ('won', 'lost', 'warning_closed')) = (closed_at is not null))
      );`);
    this.addSql(`create index disputes_list_idx on disputes (business_id, livemode, created_at desc, id desc);`);
    this.addSql(`create index disputes_status_list_idx on disputes (business_id, livemode, status, created_at desc, id desc);`);
    this.addSql(`
      create table dispute_reserve_parts (
        dispute_id text not null references disputes (id),
        reserve_id text not null references reserves (id),
        amount_in_cents bigint not null check (amount_in_cents > 0),
        primary key (dispute_id, reserve_id)
      );`);
    this.addSql(`create index dispute_reserve_parts_reserve_idx on dispute_reserve_parts (reserve_id);`);
  }

  override down(): void {
    this.addSql('drop table dispute_reserve_parts, disputes;');
    this.addSql('alter table balances add constraint balances_available_check check (available >= 0);');
    this.addSql('alter table businesses drop column dispute_fee_cents;');
  }
}
