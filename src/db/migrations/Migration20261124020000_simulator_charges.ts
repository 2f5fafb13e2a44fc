import { Migration } from '@mikro-orm/migrations';

/**
 * The processor simulator's record of its charges (`src/modules/processor/simulator/charge-book.store.ts`): what a
 * real processor keeps on its side. A charge whose call timed out is looked up here by its idempotency
 * key (the session id), after a worker restart too. One row per key: the first outcome stands.
 * `not_found` is written by a lookup that found nothing, so no charge can land after it.
 */
export class Migration20261124020000_simulator_charges extends Migration {
  override name = 'Migration20261124020000_simulator_charges';

  override up(): void {
    this.addSql(`create table simulator_charges (
      livemode boolean not null,
      idempotency_key text not null,
      status text not null check (status in ('succeeded', 'declined', 'not_found')),
      charge_id text null,
      decline_code text null,
      created_at timestamptz not null default now(),
      primary key (livemode, idempotency_key),
      check ((status = 'succeeded') = (charge_id is not null)),
      check ((status = 'declined') = (decline_code is not null))
    );`);
  }

  override down(): void {
    this.addSql('drop table simulator_charges;');
  }
}
