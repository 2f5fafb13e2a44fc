import type { MikroORM } from '@mikro-orm/postgresql';
import { purgeExpiredKeys } from '../src/modules/idempotency/index.js';

export interface IdempotencyActivityDeps {
  orm: MikroORM;
}

export function createIdempotencyActivities(deps: IdempotencyActivityDeps) {
  return {
    /** Deletes Idempotency-Key rows past their 24 hours. Safe to run twice; returns how many it deleted. */
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      return purgeExpiredKeys(deps.orm);
    },
  };
}
export type IdempotencyActivities = ReturnType<typeof createIdempotencyActivities>;
