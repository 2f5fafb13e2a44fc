import type { Reserve } from './reserve.entity.js';
import type { ReserveResource } from './reserve.schemas.js';

/** The spec's Reserve: every field of its table. */
export function reserveView(reserve: Reserve): ReserveResource {
  return {
    id: reserve.id,
    paymentId: reserve.paymentId,
    originalAmountInCents: reserve.originalAmountInCents,
    reserveAmountInCents: reserve.reserveAmountInCents,
    reservePercentage: reserve.reserveBps / 100,
    status: reserve.status,
    releasedAmountInCents: reserve.releasedAmountInCents,
    releaseAt: reserve.releaseAt.toISOString(),
    releasedAt: reserve.releasedAt?.toISOString() ?? null,
    reservedAt: reserve.reservedAt.toISOString(),
  };
}
