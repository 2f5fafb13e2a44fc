import { Migration } from '@mikro-orm/migrations';

/**
 * The expiry sweep asks for sessions left `processing` the longest (payments in doubt, handed to their
 * checkout workflow to settle). A session is `processing` only while it is charged, so the index holds a
 * handful of rows whatever the number of sessions.
 */
export class Migration20261127010000_processing_index extends Migration {
  override name = 'Migration20261127010000_processing_index';

  override up(): void {
    this.addSql(`create index checkout_sessions_processing_since_idx on checkout_sessions (updated_at) where status = 'processing';`);
  }

  override down(): void {
    this.addSql('drop index checkout_sessions_processing_since_idx;');
  }
}
