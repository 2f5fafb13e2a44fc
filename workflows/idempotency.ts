import { proxyActivities } from '@temporalio/workflow';
import type { IdempotencyActivities } from '../activities/idempotency.js';

const { purgeExpiredIdempotencyKeys } = proxyActivities<IdempotencyActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** Started by the `purge-idempotency-keys` schedule; one run deletes every key past its 24 hours. */
export async function purgeIdempotencyKeysWorkflow(): Promise<number> {
  return purgeExpiredIdempotencyKeys();
}
