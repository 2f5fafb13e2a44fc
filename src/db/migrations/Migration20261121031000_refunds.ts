import { Migration } from '@mikro-orm/migrations';

/**
 * Refunds: one per completed session (a failed refund does not count, so the merchant may try again).
 * How the amount was funded is kept on the row: from `available` and from reserves.
 */
export class Migration20261121031000_refunds extends Migration {
  override name = 'Migration20261121031000_refunds';

  override up(): void {
    this.addSql(`
      create table refunds (
        id text primary key,
        business_id text not null references businesses (id),
        livemode boolean not null,
        checkout_session_id uuid not null references checkout_sessions (id),
        amount_in_cents bigint not null check (amount_in_cents > 0),
        from_available_in_cents bigint not null check (from_available_in_cents >= 0),
        from_reserves_in_cents bigint not null check (from_reserves_in_cents >= 0),
        reason text null,
        status text not null check (status in ('pending', 'processing', 'completed', 'failed')),
        created_at timestamptz not null,
        updated_at timestamptz not null,
        processing_at timestamptz null,
        completed_at timestamptz null,
        failed_at timestamptz null,
        processor_refund_id text null,
        failure_reason text null,
        check (from_available_in_cents + from_reserves_in_cents = amount_in_cents),
        check ((status = 'completed') = (completed_at is not null)),
        check ((status = 'failed') = (failure_reason is not null))
      );`);
    // The one-refund-per-session rule, held by the database as well as checked under the balance lock.
    this.addSql(`create unique index refunds_one_per_session on refunds (checkout_session_id) where status <> 'failed';`);
    this.addSql(`create index refunds_list_idx on refunds (business_id, livemode, created_at desc, id desc);`);
  }

  override down(): void {
    this.addSql('drop table refunds;');
  }
}
