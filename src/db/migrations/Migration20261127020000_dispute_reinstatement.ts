import { Migration } from '@mikro-orm/migrations';

/**
 * A won chargeback gives the reserve-funded part of its amount back to the reserves it came from while
 * their release date is still ahead (docs/decisions.md, Disputes): what each reserve got back is recorded
 * beside what it gave, so `ledger verify` can hold every reserve's `consumed` to the shares that took
 * from it. Rows written before this are chargebacks won before, which returned everything to `available`.
 */
export class Migration20261127020000_dispute_reinstatement extends Migration {
  override name = 'Migration20261127020000_dispute_reinstatement';

  override up(): void {
    this.addSql(`alter table dispute_reserve_parts add column returned_in_cents bigint not null default 0
      check (returned_in_cents >= 0 and returned_in_cents <= amount_in_cents);`);
  }

  override down(): void {
    this.addSql('alter table dispute_reserve_parts drop column returned_in_cents;');
  }
}
