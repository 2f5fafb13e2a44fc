import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids.js';
import type { Owner } from '../ledger/index.js';
import { requireTransaction } from '../../db/transaction.js';
import { centsToDecimalString } from '../../domain/money.js';
import { OutboxEntry, workflowStart } from '../outbox/index.js';
import { reserveReleaseWorkflowContract } from '../../../contracts/reserves.js';
import { HOLDING_STATUSES, Reserve } from './reserve.entity.js';
import { planConsumption, reserveStatusOf } from './reserve.rules.js';
import { reserveReleaseAgainWorkflowId } from '../../../contracts/workflow-ids.js';

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
  /** Reserves locked at a time while looking for the cents (tests pass a small page). */
  pageSize = 50,
): Promise<{ taken: number; parts: { reserveId: string; amount: number }[] }> {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError('amount must be non-negative cents');
  if (amount === 0) return { taken: 0, parts: [] };
  // Oldest first, a page at a time, so a refund locks the few reserves it draws on rather than every
  // reserve a busy business holds (one a payment, 90 days of them). Under the balance lock no payment,
  // release or other refund of this owner changes the holding set, so the pages are stable.
  const plan: { parts: { reserveId: string; amount: number }[]; taken: number } = { parts: [], taken: 0 };
  const seen: string[] = [];
  for (;;) {
    const page: Reserve[] = await tx.find(
      Reserve,
      {
        businessId: owner.businessId,
        livemode: owner.livemode,
        status: { $in: HOLDING_STATUSES },
        ...(seen.length ? { id: { $nin: seen } } : {}),
      },
      { orderBy: [{ reservedAt: 'asc' }, { id: 'asc' }], limit: pageSize, lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    const step = planConsumption(page, amount - plan.taken);
    for (const part of step.parts) {
      const reserve = page.find((r) => r.id === part.reserveId)!;
      reserve.consumedAmountInCents += part.amount;
      reserve.status = reserveStatusOf(reserve);
    }
    plan.parts.push(...step.parts);
    plan.taken += step.taken;
    if (plan.taken === amount || page.length < pageSize) return plan;
    seen.push(...page.map((r) => r.id));
  }
}

/**
 * Gives reserves their shares back: a failed refund's, or a won chargeback's reserve-funded part (the
 * caller holds the balance lock and posts the total returned to `reserved`). The reserve keeps its
 * `releaseAt`. Every share gets a release run of its own, started by the outbox in this transaction: the
 * first run may have finished (releasing nothing from a consumed reserve), been terminated, or been
 * judged finished by a worker whose clock runs ahead of this one's. The new run sleeps until `releaseAt`
 * (at once when it has passed) and releases the share; a first run still going may release it instead,
 * and only one can. `source` names what gave the share back (`ref_…`, `dsp_…`) and how an operator reads
 * it (`failed refund ref_…`).
 */
export async function restoreReserves(
  tx: EntityManager,
  source: { id: string; description: string },
  parts: { reserveId: string; amount: number }[],
  at: Date,
): Promise<number> {
  requireTransaction(tx);
  if (parts.length === 0) return 0;
  const reserves = await tx.find(Reserve, { id: { $in: parts.map((part) => part.reserveId) } }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  const byId = new Map(reserves.map((r) => [r.id, r]));
  let restored = 0;
  for (const part of parts) {
    const reserve = byId.get(part.reserveId)!;
    reserve.consumedAmountInCents -= part.amount;
    reserve.status = reserveStatusOf(reserve);
    restored += part.amount;
    startReleaseAgain(tx, reserve, source, part.amount, at);
  }
  return restored;
}

/** `reserve-release-<res id>-after-<ref or dsp id>`: the dispatcher never reuses a workflow id, so a new run needs its own. */
function startReleaseAgain(tx: EntityManager, reserve: Reserve, source: { id: string; description: string }, amount: number, at: Date): void {
  tx.create(OutboxEntry, {
    createdAt: at,
    message: workflowStart(reserveReleaseWorkflowContract, {
      workflowId: reserveReleaseAgainWorkflowId(reserve.id, source.id),
      args: [{ reserveId: reserve.id, releaseAt: reserve.releaseAt.toISOString() }],
      searchAttributes: { BusinessId: reserve.businessId, Livemode: reserve.livemode, AmountInCents: amount },
      summary: `Release $${centsToDecimalString(amount)} given back to reserve ${reserve.id} by ${source.description}`,
    }),
  });
}
