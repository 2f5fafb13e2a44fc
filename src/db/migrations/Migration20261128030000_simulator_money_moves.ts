import { Migration } from '@mikro-orm/migrations';

/**
 * The processor simulator's record of its refunds and payouts (`claimMove` in
 * src/modules/processor/simulator/charge-book.store.ts), as `simulator_charges` is of its charges: one row per
 * kind, mode and idempotency key (the refund id, the withdrawal id), the first outcome standing. It lets
 * the fault suite count the money moved by the processor's own record: one refund per refund, one payout
 * per withdrawal, however often a restarted worker asked.
 */
export class Migration20261128030000_simulator_money_moves extends Migration {
  override name = 'Migration20261128030000_simulator_money_moves';

  override up(): void {
    this.addSql(`create table simulator_money_moves (
      kind text not null check (kind in ('refund', 'payout')),
      livemode boolean not null,
      idempotency_key text not null,
      amount_in_cents bigint not null check (amount_in_cents > 0),
      charge_id text null,
      status text not null check (status in ('succeeded', 'declined')),
      reference text null,
      message text null,
      created_at timestamptz not null default now(),
      primary key (kind, livemode, idempotency_key),
      check ((kind = 'refund') = (charge_id is not null)),
      check ((status = 'succeeded') = (reference is not null)),
      check ((status = 'declined') = (message is not null))
    );`);
  }

  override down(): void {
    this.addSql('drop table simulator_money_moves;');
  }
}
