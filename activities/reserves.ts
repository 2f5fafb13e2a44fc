import type { MikroORM } from '@mikro-orm/postgresql';
import { releaseReserve, type ReleaseOutcome } from '../src/modules/reserves/index.js';

export interface ReserveActivityDeps {
  orm: MikroORM;
}

export function createReserveActivities(deps: ReserveActivityDeps) {
  return {
    /**
     * Moves what the reserve still holds to available, in one transaction under the balance lock.
     * Before `releaseAt` it moves nothing and answers `notDueUntil`; a reserve already released or
     * consumed is left alone, so a retry releases nothing twice. Null when the reserve does not exist
     * (its payment's transaction never committed).
     */
    async releaseReserve(reserveId: string): Promise<ReleaseOutcome | null> {
      return deps.orm.em.fork().transactional((tx) => releaseReserve(tx, reserveId));
    },
  };
}
export type ReserveActivities = ReturnType<typeof createReserveActivities>;
