import { Migration } from '@mikro-orm/migrations';

/** The double-entry ledger: balanced, append-only transactions and the per-business balance row. */
export class Migration20261121010000_ledger extends Migration {
  override name = 'Migration20261121010000_ledger';

  override up(): void {
    this.addSql(`
      create table balances (
        business_id text not null references businesses (id),
        livemode boolean not null,
        available bigint not null check (available >= 0),
        reserved bigint not null check (reserved >= 0),
        pending_withdrawal bigint not null check (pending_withdrawal >= 0),
        refunds_in_flight bigint not null check (refunds_in_flight >= 0),
        updated_at timestamptz not null,
        primary key (business_id, livemode)
      );`);
    this.addSql(`
      create table ledger_transactions (
        id text primary key,
        business_id text not null references businesses (id),
        livemode boolean not null,
        kind text not null,
        reference_id text not null,
        created_at timestamptz not null,
        unique (kind, reference_id)
      );`);
    this.addSql(`create index ledger_transactions_business_idx on ledger_transactions (business_id, livemode, created_at);`);
    this.addSql(`
      create table ledger_entries (
        id bigserial primary key,
        transaction_id text not null references ledger_transactions (id),
        business_id text not null,
        livemode boolean not null,
        account text not null check (account in
          ('available', 'reserved', 'pending_withdrawal', 'refunds_in_flight', 'processor_clearing', 'fee_revenue', 'payouts_clearing')),
        amount bigint not null check (amount <> 0)
      );`);
    this.addSql(`create index ledger_entries_transaction_idx on ledger_entries (transaction_id);`);
    this.addSql(`create index ledger_entries_owner_idx on ledger_entries (business_id, livemode, account);`);
    // Append-only is enforced by the database, not only by convention.
    this.addSql(`
      create function ledger_append_only() returns trigger language plpgsql as $$
      begin raise exception 'ledger rows are append-only'; end $$;`);
    this.addSql(`create trigger ledger_transactions_append_only before update or delete on ledger_transactions
      for each row execute function ledger_append_only();`);
    this.addSql(`create trigger ledger_entries_append_only before update or delete on ledger_entries
      for each row execute function ledger_append_only();`);
  }

  override down(): void {
    this.addSql('drop table ledger_entries, ledger_transactions, balances;');
    this.addSql('drop function ledger_append_only();');
  }
}
