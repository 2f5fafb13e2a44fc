import { Migration } from '@mikro-orm/migrations';

/**
 * Which reserves funded each refund, and how much each gave (written with the refund). A refund that
 * fails gives each reserve its own share back, so the money held returns to the hold it came from and
 * only the part taken from `available` returns to `available`. Refunds made before this table have no
 * rows here: if one of them fails, what it took from reserves returns to `available`, as it did then.
 */
export class Migration20261124030000_refund_reserve_parts extends Migration {
  override name = 'Migration20261124030000_refund_reserve_parts';

  override up(): void {
    this.addSql(`create table refund_reserve_parts (
      refund_id text not null references refunds (id),
      reserve_id text not null references reserves (id),
      amount_in_cents bigint not null check (amount_in_cents > 0),
      primary key (refund_id, reserve_id)
    );`);
    this.addSql(`create index refund_reserve_parts_reserve_idx on refund_reserve_parts (reserve_id);`);
  }

  override down(): void {
    this.addSql('drop table refund_reserve_parts;');
  }
}
