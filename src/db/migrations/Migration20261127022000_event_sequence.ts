import { Migration } from '@mikro-orm/migrations';

/**
 * Every event carries a sequence a receiver can sort by (`sequence` in each delivery's body). It is
 * drawn when the event's row is inserted, and an event is inserted in the transaction of the change it
 * reports, under that record's lock: so of one record's events (a dispute's `created`, then
 * `funds_withdrawn`, then its updates) a later one always has a larger sequence, whichever host's clock
 * stamped each `createdAt`. Events already there are numbered in the order of their time and id.
 */
export class Migration20261127022000_event_sequence extends Migration {
  override name = 'Migration20261127022000_event_sequence';

  override up(): void {
    this.addSql(`create sequence if not exists events_sequence_seq as bigint;`);
    this.addSql(`alter table events add column if not exists sequence bigint;`);
    this.addSql(`
      update events e set sequence = numbered.n
      from (select id, nextval('events_sequence_seq') as n from (select id from events order by created_at, id) ordered) numbered
      where e.id = numbered.id and e.sequence is null;`);
    this.addSql(`alter table events alter column sequence set default nextval('events_sequence_seq');`);
    this.addSql(`alter sequence events_sequence_seq owned by events.sequence;`);
    this.addSql(`alter table events alter column sequence set not null;`);
  }

  override down(): void {
    this.addSql('alter table events drop column sequence;');
  }
}
