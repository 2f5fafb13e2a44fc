import { proxyActivities } from '@temporalio/workflow';
import type { IdempotencyActivities } from '../activities/idempotency.js';

const { purgeExpiredIdempotencyKeys } = proxyActivities<IdempotencyActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * What the hourly `purge-idempotency-keys` schedule started before the retention workflow took its place
 * (workflows/retention.ts does the same first): kept registered so that a run that schedule started just
 * before an upgrade still finishes; the schedule itself is removed at the worker's start.
 */
export async function purgeIdempotencyKeysWorkflow(): Promise<number> {
  return purgeExpiredIdempotencyKeys();
}
