import { Migration } from '@mikro-orm/migrations';

/**
 * The key cache's notification on an insert too. The cache now remembers an unknown key for a few seconds
 * (src/modules/businesses/api-key.cache.ts), so a key created for a secret that was just refused must
 * empty it, as a revocation does, or the new key would be refused until the miss expired.
 */
export class Migration20261128124000_api_key_insert_notify extends Migration {
  override name = 'Migration20261128124000_api_key_insert_notify';

  override up(): void {
    for (const table of ['api_keys', 'businesses']) {
      this.addSql(`drop trigger ${table}_changes_notify on ${table};`);
      this.addSql(`create trigger ${table}_changes_notify after insert or update or delete or truncate on ${table}
        for each statement execute function api_key_changes_notify();`);
    }
  }

  override down(): void {
    for (const table of ['api_keys', 'businesses']) {
      this.addSql(`drop trigger ${table}_changes_notify on ${table};`);
      this.addSql(`create trigger ${table}_changes_notify after update or delete or truncate on ${table}
        for each statement execute function api_key_changes_notify();`);
    }
  }
}
