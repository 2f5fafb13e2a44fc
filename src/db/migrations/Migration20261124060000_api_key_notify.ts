import { Migration } from '@mikro-orm/migrations';

/**
 * Tells every API process that an API key or a business changed (a revoked key, an approval, new fees or
 * rate limits), so the in-process key cache (src/modules/businesses/api-key.cache.ts) forgets what it
 * holds. A trigger, not a call in the service, so every writer is covered: the admin CLI, a service, an
 * operator's SQL. NOTIFY is delivered at commit and never on rollback, in the transaction of the change.
 * Statement-level: one notification per statement (folded per transaction), no payload; the cache clears
 * itself whole, as such changes are rare.
 */
export class Migration20261124060000_api_key_notify extends Migration {
  override name = 'Migration20261124060000_api_key_notify';

  override up(): void {
    this.addSql(`
      create function api_key_changes_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('api_key_changes', '');
        return null;
      end $$;`);
    for (const table of ['api_keys', 'businesses']) {
      this.addSql(`create trigger ${table}_changes_notify after update or delete or truncate on ${table}
        for each statement execute function api_key_changes_notify();`);
    }
  }

  override down(): void {
    this.addSql('drop trigger api_keys_changes_notify on api_keys;');
    this.addSql('drop trigger businesses_changes_notify on businesses;');
    this.addSql('drop function api_key_changes_notify();');
  }
}
