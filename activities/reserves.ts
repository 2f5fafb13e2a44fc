import type { MikroORM } from '@mikro-orm/postgresql';
import { releaseReserve } from '../src/modules/reserves/reserve.service.js';

export interface ReserveActivityDeps {
  orm: MikroORM;
}

export function createReserveActivities(deps: ReserveActivityDeps) {
  return {
    /**
     * Moves what the reserve still holds to available, in one transaction under the balance lock.
     * A reserve already released or consumed is left alone, so a retry releases nothing twice.
     * Null when the reserve does not exist (its payment's transaction never committed).
     */
    async releaseReserve(reserveId: string): Promise<{ status: string; releasedAmountInCents: number } | null> {
      return releaseReserve(deps.orm.em.fork(), reserveId);
    },
  };
}
export type ReserveActivities = ReturnType<typeof createReserveActivities>;
