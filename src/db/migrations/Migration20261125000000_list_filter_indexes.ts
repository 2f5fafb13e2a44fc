import { Migration } from '@mikro-orm/migrations';

/**
 * Two list filters that read a business's whole history: `GET /refunds?transactionId=` (the only index on
 * `checkout_session_id` was the partial one-live-refund-per-session index, which a filter on every status
 * cannot use) and `GET /withdrawals?status=` (the status index had no order, so every withdrawal of that
 * status was sorted for one page). The new withdrawal index replaces the old one, so a withdrawal's
 * insert maintains no more indexes than before.
 */
export class Migration20261125000000_list_filter_indexes extends Migration {
  override name = 'Migration20261125000000_list_filter_indexes';

  override up(): void {
    this.addSql(`create index refunds_session_idx on refunds (checkout_session_id);`);
    this.addSql(`create index withdrawals_status_list_idx on withdrawals (business_id, livemode, status, requested_at desc, id desc);`);
    this.addSql(`drop index withdrawals_status_idx;`);
  }

  override down(): void {
    this.addSql(`create index withdrawals_status_idx on withdrawals (business_id, livemode, status);`);
    this.addSql(`drop index withdrawals_status_list_idx;`);
    this.addSql(`drop index refunds_session_idx;`);
  }
}
