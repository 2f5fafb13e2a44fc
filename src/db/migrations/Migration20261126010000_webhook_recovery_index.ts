import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook recovery reads the failed deliveries of one endpoint since the window's start, not its whole
 * delivery history: a partial index over failed deliveries only, by endpoint and time. A delivery leaves
 * it when it is re-sent (its next generation is a new row) and never enters it while it succeeds.
 */
export class Migration20261126010000_webhook_recovery_index extends Migration {
  override name = 'Migration20261126010000_webhook_recovery_index';

  override up(): void {
    this.addSql(`create index webhook_deliveries_failed_idx on webhook_deliveries (endpoint_id, created_at, id) where status = 'failed';`);
  }

  override down(): void {
    this.addSql(`drop index webhook_deliveries_failed_idx;`);
  }
}
