import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids.js';
import { lockBalance, postTransaction, type Owner } from '../ledger/ledger.service.js';
import { HOLDING_STATUSES, Reserve } from './reserve.entity.js';
import { heldOf, planConsumption, reserveStatusOf } from './reserve.rules.js';
import { transfer } from '../ledger/accounts.js';

export const reserveReleaseWorkflowId = (reserveId: string) => `reserve-release-${reserveId}`;

/** A new reserve, in the caller's payment transaction (which also posts the cents to `reserved`). */
export function createReserve(
  tx: EntityManager,
  input: Owner & { paymentId: string; originalAmountInCents: number; reserveAmountInCents: number; reserveBps: number; reservedAt: Date; holdMs: number },
): Reserve {
  return tx.create(Reserve, {
    id: newId('res'),
    businessId: input.businessId,
    livemode: input.livemode,
    paymentId: input.paymentId,
    originalAmountInCents: input.originalAmountInCents,
    reserveAmountInCents: input.reserveAmountInCents,
    reserveBps: input.reserveBps,
    consumedAmountInCents: 0,
    releasedAmountInCents: 0,
    status: 'active',
    releaseAt: new Date(input.reservedAt.getTime() + input.holdMs),
    releasedAt: null,
    reservedAt: input.reservedAt,
    updatedAt: input.reservedAt,
  });
}

/**
 * Takes up to `amount` cents from the owner's oldest reserves that still hold money, marking each
 * `partially_released` or `consumed`, and returns what it took from which. The caller must already hold
 * the balance lock (`lockBalance`), the same lock the release takes first, so a refund and the release
 * timer can never both take the same cents; and it posts `reserved −taken` in its own ledger transaction.
 */
export async function consumeReserves(
  tx: EntityManager,
  owner: Owner,
  amount: number,
): Promise<{ taken: number; parts: { reserveId: string; amount: number }[] }> {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError('amount must be non-negative cents');
  if (amount === 0) return { taken: 0, parts: [] };
  const reserves = await tx.find(
    Reserve,
    { businessId: owner.businessId, livemode: owner.livemode, status: { $in: HOLDING_STATUSES } },
    { orderBy: [{ reservedAt: 'asc' }, { id: 'asc' }], lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  const plan = planConsumption(reserves, amount);
  const byId = new Map(reserves.map((r) => [r.id, r]));
  for (const part of plan.parts) {
    const reserve = byId.get(part.reserveId)!;
    reserve.consumedAmountInCents += part.amount;
    reserve.status = reserveStatusOf(reserve);
  }
  return plan;
}

/**
 * The release at `releaseAt`: in one transaction, whatever the reserve still holds moves from `reserved`
 * to `available`. A reserve already released or consumed releases nothing, so running twice is harmless.
 */
export async function releaseReserve(
  em: EntityManager,
  reserveId: string,
  at: Date = new Date(),
): Promise<{ status: string; releasedAmountInCents: number } | null> {
  return em.transactional(async (tx) => {
    const found = await tx.findOne(Reserve, { id: reserveId });
    if (!found) return null;
    // The balance lock first, as every money move takes it, then the reserve row.
    const balance = await lockBalance(tx, { businessId: found.businessId, livemode: found.livemode });
    const reserve = await tx.findOneOrFail(Reserve, { id: reserveId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!HOLDING_STATUSES.includes(reserve.status)) {
      return { status: reserve.status, releasedAmountInCents: reserve.releasedAmountInCents };
    }
    const held = heldOf(reserve);
    postTransaction(tx, balance, {
      kind: 'reserve.release',
      referenceId: reserve.id,
      lines: transfer('reserved', 'available', held),
      at,
    });
    reserve.releasedAmountInCents += held;
    reserve.releasedAt = at;
    reserve.status = reserveStatusOf(reserve);
    return { status: reserve.status, releasedAmountInCents: reserve.releasedAmountInCents };
  });
}
