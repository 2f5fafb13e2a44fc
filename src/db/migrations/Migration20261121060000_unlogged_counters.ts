import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit counters need no crash durability: after a crash they start again from zero, which only
 * forgives a minute's budget. Unlogged, their updates skip the WAL flush that every request paid for.
 */
export class Migration20261121060000_unlogged_counters extends Migration {
  override name = 'Migration20261121060000_unlogged_counters';

  override up(): void {
    this.addSql('alter table rate_limit_counters set unlogged;');
  }

  override down(): void {
    this.addSql('alter table rate_limit_counters set logged;');
  }
}
