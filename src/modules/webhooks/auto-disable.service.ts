import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../events/index.js';

/** Svix's figure: an endpoint failing this long without one success is switched off (WEBHOOK_DISABLE_AFTER). */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/** Whether a failure streak that began at `failingSince` has lasted long enough, at `at`, to disable. */
export function streakIsTooLong(failingSince: Date, at: Date, disableAfterMs: number): boolean {
  return at.getTime() - failingSince.getTime() >= disableAfterMs;
}

/**
 * After each attempt, in the transaction that records it. A success ends the endpoint's failure streak;
 * a failure starts one (at `at`) or, when the streak has lasted `disableAfterMs`, disables the endpoint
 * (`failing`): its waiting deliveries end `failed`, and the business's other endpoints subscribed to
 * `webhook_endpoint.disabled` are told through the normal fan-out. Returns whether it disabled it.
 */
export async function noteAttemptOutcome(
  tx: EntityManager,
  endpointId: string,
  ok: boolean,
  at: Date,
  disableAfterMs: number,
): Promise<boolean> {
  if (ok) {
    await tx.execute('update webhook_endpoints set failing_since = null where id = ? and failing_since is not null', [endpointId], 'run');
    return false;
  }
  const [endpoint] = await tx.execute<{ failing_since: Date; enabled: boolean; url: string; business_id: string; livemode: boolean }[]>(
    `update webhook_endpoints set failing_since = coalesce(failing_since, ?) where id = ?
     returning failing_since, enabled, url, business_id, livemode`,
    [at, endpointId],
  );
  if (!endpoint?.enabled || !streakIsTooLong(new Date(endpoint.failing_since), at, disableAfterMs)) return false;
  const disabled = await tx.execute(
    `update webhook_endpoints set enabled = false, disabled_reason = 'failing', disabled_at = ?, updated_at = now()
     where id = ? and enabled and deleted_at is null returning id`,
    [at, endpointId],
  );
  if (!disabled.length) return false;
  await tx.execute(
    `update webhook_deliveries set status = 'failed', last_error = coalesce(last_error || '; ', '') || 'Endpoint disabled (failing)',
       next_attempt_at = null, completed_at = now(), updated_at = now()
     where endpoint_id = ? and status = 'pending'`,
    [endpointId],
    'run',
  );
  const payload = { endpointId, url: endpoint.url, reason: 'failing', disabledAt: at.toISOString() };
  recordEvent(tx, { businessId: endpoint.business_id, livemode: endpoint.livemode }, 'webhook_endpoint.disabled', payload, at);
  await tx.flush();
  return true;
}
