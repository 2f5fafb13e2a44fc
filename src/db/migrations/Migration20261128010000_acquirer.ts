import { Migration } from '@mikro-orm/migrations';

/**
 * A real acquirer behind the processor port (docs/acquirer.md).
 * - `charge_references`: the acquirer's own id for a session's charge (a Stripe PaymentIntent), recorded
 *   before the charge is confirmed, and the key's closing by a lookup (`closed_at`): a charge may only be
 *   confirmed once its id stands here, and a lookup closes the key, so `not_found` stays final
 *   (docs/decisions.md, Payments). Its index on `reference` finds the session a Stripe dispute names.
 * - `acquirer_events`: every event the acquirer's webhook delivered and its signature verified, once each
 *   (its own id is the key, so a repeated delivery records nothing twice), with what it did.
 * - `disputes.acquirer*`: which acquirer reported a dispute, its id for it, and its status as last heard.
 */
export class Migration20261128010000_acquirer extends Migration {
  override name = 'Migration20261128010000_acquirer';

  override up(): void {
    this.addSql(`create table charge_references (
      session_id uuid primary key references checkout_sessions (id),
      reference text null,
      closed_at timestamptz null,
      created_at timestamptz not null default now(),
      check (reference is not null or closed_at is not null)
    );`);
    this.addSql(`create unique index charge_references_reference_idx on charge_references (reference) where reference is not null;`);
    this.addSql(`create table acquirer_events (
      acquirer text not null,
      id text not null,
      type text not null,
      livemode boolean not null,
      object_id text null,
      event_created_at timestamptz not null,
      received_at timestamptz not null default now(),
      outcome text not null,
      detail text null,
      dispute_id text null references disputes (id),
      payload jsonb not null,
      primary key (acquirer, id)
    );`);
    this.addSql(`alter table disputes add column acquirer text null, add column acquirer_dispute_id text null, add column acquirer_status text null;`);
    this.addSql(`create unique index disputes_acquirer_dispute_idx on disputes (acquirer, acquirer_dispute_id) where acquirer_dispute_id is not null;`);
  }

  override down(): void {
    this.addSql('drop index disputes_acquirer_dispute_idx;');
    this.addSql('alter table disputes drop column acquirer, drop column acquirer_dispute_id, drop column acquirer_status;');
    this.addSql('drop table acquirer_events;');
    this.addSql('drop table charge_references;');
  }
}
