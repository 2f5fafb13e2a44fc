import { Migration } from '@mikro-orm/migrations';

/**
 * Which payment attempt moved a session to `processing`. The move's activity may run again after its
 * answer was lost (a Temporal outage at the wrong moment); the retry must recognise its own move rather
 * than take it for another payment's and leave the session `processing` for good.
 */
export class Migration20261121080000_payment_attempt extends Migration {
  override name = 'Migration20261121080000_payment_attempt';

  override up(): void {
    this.addSql('alter table checkout_sessions add column payment_attempt_id text null;');
  }

  override down(): void {
    this.addSql('alter table checkout_sessions drop column payment_attempt_id;');
  }
}
