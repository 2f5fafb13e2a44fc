import { Migration } from '@mikro-orm/migrations';

/**
 * Exact list totals without counting rows: how many sessions, refunds, withdrawals and reserves a
 * business has in each status, and events of each type, per mode. Every insert, delete and status change
 * of those tables appends its change to `row_count_deltas`, in its own transaction, by a statement-level
 * trigger (one row per key a statement changes, so a bulk insert costs one row, not a row each). Appending
 * takes no lock any other transaction waits for, so counting cannot serialise a business's writes or
 * deadlock with a money move. The worker folds deltas into `row_counts` every few seconds (src/modules/
 * lists/row-count.folder.ts); a total is `row_counts` plus the deltas not yet folded, exact at any moment.
 */
const COUNTED = [
  { table: 'checkout_sessions', resource: 'checkout_session', column: 'status' },
  { table: 'refunds', resource: 'refund', column: 'status' },
  { table: 'withdrawals', resource: 'withdrawal', column: 'status' },
  { table: 'reserves', resource: 'reserve', column: 'status' },
  { table: 'events', resource: 'event', column: 'type' },
] as const;

const deltas = (rows: string, column: string, sign: string) =>
  `select business_id, livemode, ${column} as key, ${sign}count(*) as delta from ${rows} group by 1, 2, 3`;

export class Migration20261126020000_row_counts extends Migration {
  override name = 'Migration20261126020000_row_counts';

  override up(): void {
    this.addSql(`
      create table row_counts (
        business_id text not null,
        livemode boolean not null,
        resource text not null,
        key text not null,
        count bigint not null,
        primary key (business_id, livemode, resource, key)
      );`);
    this.addSql(`
      create table row_count_deltas (
        id bigserial primary key,
        business_id text not null,
        livemode boolean not null,
        resource text not null,
        key text not null,
        delta bigint not null
      );`);
    this.addSql(`create index row_count_deltas_key_idx on row_count_deltas (business_id, livemode, resource);`);
    for (const { table, resource, column } of COUNTED) {
      // Static SQL per table (plans cached), not one function with dynamic SQL planned at every statement.
      this.addSql(`
        create function ${table}_count_insert() returns trigger language plpgsql as $$
        begin
          insert into row_count_deltas (business_id, livemode, resource, key, delta)
          select business_id, livemode, '${resource}', key, delta from (${deltas('inserted', column, '')}) d;
          return null;
        end $$;`);
      this.addSql(`
        create function ${table}_count_delete() returns trigger language plpgsql as $$
        begin
          insert into row_count_deltas (business_id, livemode, resource, key, delta)
          select business_id, livemode, '${resource}', key, delta from (${deltas('deleted', column, '-')}) d;
          return null;
        end $$;`);
      // An update statement changes a key only where old and new differ: the two sides net out elsewhere.
      this.addSql(`
        create function ${table}_count_update() returns trigger language plpgsql as $$
        begin
          insert into row_count_deltas (business_id, livemode, resource, key, delta)
          select business_id, livemode, '${resource}', key, sum(delta) from (
            ${deltas('deleted', column, '-')} union all ${deltas('inserted', column, '')}) d
          group by business_id, livemode, key having sum(delta) <> 0;
          return null;
        end $$;`);
      this.addSql(`create trigger ${table}_count_insert after insert on ${table} referencing new table as inserted
        for each statement execute function ${table}_count_insert();`);
      this.addSql(`create trigger ${table}_count_delete after delete on ${table} referencing old table as deleted
        for each statement execute function ${table}_count_delete();`);
      this.addSql(`create trigger ${table}_count_update after update on ${table} referencing old table as deleted new table as inserted
        for each statement execute function ${table}_count_update();`);
      // What is there already, counted once, in the same transaction as the triggers' creation.
      this.addSql(`insert into row_counts (business_id, livemode, resource, key, count)
        select business_id, livemode, '${resource}', ${column}, count(*) from ${table} group by 1, 2, 3, 4;`);
    }
  }

  override down(): void {
    for (const { table } of COUNTED) {
      for (const op of ['insert', 'delete', 'update']) {
        this.addSql(`drop trigger ${table}_count_${op} on ${table};`);
        this.addSql(`drop function ${table}_count_${op}();`);
      }
    }
    this.addSql('drop table row_count_deltas, row_counts;');
  }
}
