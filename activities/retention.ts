import type { MikroORM } from '@mikro-orm/postgresql';
import type { RetentionBatch } from '../contracts/retention.js';
import { applyRetention } from '../src/modules/retention/index.js';

export interface RetentionActivityDeps {
  orm: MikroORM;
}

export function createRetentionActivities(deps: RetentionActivityDeps) {
  return {
    /** Deletes one batch of what a retention rule says has outlived its window. Safe to run twice. */
    async applyRetention(batch: RetentionBatch): Promise<{ deleted: number; more: boolean }> {
      return applyRetention(deps.orm, batch);
    },
  };
}
export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
