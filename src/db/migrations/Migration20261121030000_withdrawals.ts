import { Migration } from '@mikro-orm/migrations';

/**
 * Withdrawals: a business's payout of available money to a wallet account or a crypto address. The
 * status check mirrors the spec's states; the money itself lives in the ledger (`pending_withdrawal`).
 */
export class Migration20261121030000_withdrawals extends Migration {
  override name = 'Migration20261121030000_withdrawals';

  override up(): void {
    this.addSql(`
      create table withdrawals (
        id text primary key,
        business_id text not null references businesses (id),
        livemode boolean not null,
        amount_in_cents bigint not null check (amount_in_cents > 0),
        status text not null check (status in ('pending', 'processing', 'completed', 'failed', 'cancelled')),
        destination_type text not null check (destination_type in ('wallet', 'crypto')),
        destination_details text not null,
        notes text null,
        requested_at timestamptz not null,
        updated_at timestamptz not null,
        processing_at timestamptz null,
        completed_at timestamptz null,
        cancelled_at timestamptz null,
        failed_at timestamptz null,
        processor_transaction_id text null,
        transaction_hash text null,
        failure_reason text null,
        check ((status = 'completed') = (completed_at is not null)),
        check ((status = 'failed') = (failure_reason is not null))
      );`);
    this.addSql(`create index withdrawals_list_idx on withdrawals (business_id, livemode, requested_at desc, id desc);`);
    this.addSql(`create index withdrawals_status_idx on withdrawals (business_id, livemode, status);`);
  }

  override down(): void {
    this.addSql('drop table withdrawals;');
  }
}
