import { Migration } from '@mikro-orm/migrations';

/**
 * The expiry sweep asks for pending sessions by `expires_at` (the ones due, then the next one due). Only
 * pending sessions can expire, so the index holds only those and stays as small as the open sessions.
 */
export class Migration20261121090000_session_expiry_index extends Migration {
  override name = 'Migration20261121090000_session_expiry_index';

  override up(): void {
    this.addSql(`create index checkout_sessions_pending_expiry_idx on checkout_sessions (expires_at) where status = 'pending';`);
  }

  override down(): void {
    this.addSql('drop index checkout_sessions_pending_expiry_idx;');
  }
}
