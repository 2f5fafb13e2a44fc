import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { IdempotencyActivities } from '../activities/idempotency.js';
import type { RetentionActivities } from '../activities/retention.js';
import { RETENTION_RULES } from '../contracts/retention.js';

const options = { startToCloseTimeout: '5 minutes', retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 } } as const;
const { applyRetention } = proxyActivities<RetentionActivities>(options);
const { purgeExpiredIdempotencyKeys } = proxyActivities<IdempotencyActivities>(options);

const DAY_MS = 24 * 3600 * 1000;
/** Batches one run takes of a rule at most; the next hour's run goes on where it stopped. */
const MAX_BATCHES = 100;

/**
 * Started hourly by the retention schedule (`retention-<task queue>`, src/temporal/schedules.ts): every
 * Idempotency-Key past its 24 hours, then each rule of contracts/retention.ts in batches, its window
 * measured from this run's start (the workflow's clock, so a replay or a time-skipping test sees the
 * same cut-off). Returns what each rule deleted.
 */
export async function retentionWorkflow(): Promise<Record<string, number>> {
  const now = Date.now();
  const deleted: Record<string, number> = { idempotency_keys: await purgeExpiredIdempotencyKeys() };
  for (const rule of RETENTION_RULES) {
    const before = new Date(now - rule.keepDays * DAY_MS).toISOString();
    setCurrentDetails(`Deleting ${rule.name} from before ${before}`);
    deleted[rule.name] = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const result = await applyRetention({ rule: rule.name, before });
      deleted[rule.name] += result.deleted;
      if (!result.more) break;
    }
  }
  setCurrentDetails(`Deleted ${JSON.stringify(deleted)}`);
  return deleted;
}
