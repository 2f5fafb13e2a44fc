import type { EntityManager } from '@mikro-orm/postgresql';
import { Refund } from './refund.entity.js';

/**
 * Whether the session has a refund that has not failed: one pending or made. Asked by a refund's own
 * rules (one refund per session) and by a dispute's opening (a refunded session cannot be disputed), so
 * the question lives with the table that answers it and disputes/ asks it through this module's face.
 */
export async function hasStandingRefund(tx: EntityManager, checkoutSessionId: string): Promise<boolean> {
  return (await tx.count(Refund, { checkoutSessionId, status: { $ne: 'failed' } })) > 0;
}
