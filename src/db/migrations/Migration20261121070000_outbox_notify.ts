import { Migration } from '@mikro-orm/migrations';

/**
 * Wakes the outbox relay the moment a row nobody has claimed commits (an event written by an activity,
 * a row whose fast path never ran), instead of at its next poll. Rows a request claims at insert for its
 * own fast path carry `claimed_until` and stay quiet. NOTIFY is delivered at commit, never before, and
 * identical notifications in one transaction fold into one.
 */
export class Migration20261121070000_outbox_notify extends Migration {
  override name = 'Migration20261121070000_outbox_notify';

  override up(): void {
    this.addSql(`
      create function outbox_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('outbox', '');
        return null;
      end $$;`);
    this.addSql(`
      create trigger outbox_notify after insert on outbox
      for each row when (new.claimed_until is null) execute function outbox_notify();`);
  }

  override down(): void {
    this.addSql('drop trigger outbox_notify on outbox;');
    this.addSql('drop function outbox_notify();');
  }
}
