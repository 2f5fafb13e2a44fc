import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook operations (docs/decisions.md, Webhooks): why an endpoint is off and since when, the start of its failure
 * streak (cleared by any success), its optional throttle, and the earliest time its next attempt may
 * go out (a throttle slot or a receiver's Retry-After). A test ping is an event marked `test`.
 */
export class Migration20261124070000_webhook_operations extends Migration {
  override name = 'Migration20261124070000_webhook_operations';

  override up(): void {
    this.addSql(`alter table webhook_endpoints
      add column disabled_reason text check (disabled_reason in ('manual', 'failing')),
      add column disabled_at timestamptz,
      add column failing_since timestamptz,
      add column rate_limit_per_second integer check (rate_limit_per_second between 1 and 1000),
      add column next_attempt_not_before timestamptz;`);
    // Endpoints switched off before this migration were switched off by their merchant.
    this.addSql(`update webhook_endpoints set disabled_reason = 'manual', disabled_at = updated_at where not enabled and deleted_at is null;`);
    this.addSql(`alter table events add column test boolean not null default false;`);
  }

  override down(): void {
    this.addSql('alter table events drop column test;');
    this.addSql(`alter table webhook_endpoints drop column disabled_reason, drop column disabled_at, drop column failing_since,
      drop column rate_limit_per_second, drop column next_attempt_not_before;`);
  }
}
