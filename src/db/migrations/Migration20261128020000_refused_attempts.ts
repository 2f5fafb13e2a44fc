import { Migration } from '@mikro-orm/migrations';

/**
 * The pay attempts a session has refused: a pay call that answers 503 ("retry") names its attempt here
 * first, under the session's row lock, and `beginPayment` never moves a session for an attempt named
 * here, so an update the server held past the call's deadline can no longer charge after that 503
 * (docs/decisions.md, The pay call's deadline). Rare (only a 503 writes it), so an array on the row.
 * The constant default makes the column metadata-only to add.
 */
export class Migration20261128020000_refused_attempts extends Migration {
  override name = 'Migration20261128020000_refused_attempts';

  override up(): void {
    this.addSql(`alter table checkout_sessions add column refused_attempt_ids text[] not null default '{}';`);
  }

  override down(): void {
    this.addSql('alter table checkout_sessions drop column refused_attempt_ids;');
  }
}
