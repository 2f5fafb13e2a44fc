import { Migration } from '@mikro-orm/migrations';

/**
 * When the last attempt to a throttled endpoint began. Turns are reserved 1/rate s apart, but a turn
 * kept late (a slow timer, a busy worker) would let the next one follow it closely; each attempt to a
 * throttled endpoint therefore also starts no sooner than 1/rate s after the one before it.
 */
export class Migration20261124080000_webhook_throttle_gate extends Migration {
  override name = 'Migration20261124080000_webhook_throttle_gate';

  override up(): void {
    this.addSql('alter table webhook_endpoints add column last_attempt_started_at timestamptz;');
  }

  override down(): void {
    this.addSql('alter table webhook_endpoints drop column last_attempt_started_at;');
  }
}
