import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { requireTransaction } from '../../db/transaction.js';
import { transfer, lockBalance, postTransaction } from '../ledger/index.js';
import { HOLDING_STATUSES, Reserve, type ReserveStatus } from './reserve.entity.js';
import { heldOf, releaseReference, reserveStatusOf } from './reserve.rules.js';

/**
 * The move the reserve release workflow asks for (its activity runs it in the transaction it opened).
 * Apart from reserve.service.ts, which starts that workflow: the workflow's activity type leads here,
 * and must not lead back to the workflow.
 */

/** What a release did: the reserve's status and all it has released, or, before `releaseAt`, when it is due. */
export interface ReleaseOutcome {
  status: ReserveStatus;
  releasedAmountInCents: number;
  /** Set only when asked before `releaseAt` (ISO 8601): nothing was released; ask again then. */
  notDueUntil?: string;
}

/**
 * The release at `releaseAt`: whatever the reserve still holds moves from `reserved` to `available`, in
 * the caller's transaction. Before `releaseAt` it releases nothing and says when the reserve is due,
 * whatever asked (an early timer, a retried activity, an operator). "Before" is judged by the database's
 * clock (`now()`), not by the clock of whichever worker runs the step, so a worker whose clock runs ahead
 * cannot release early; the release is stamped with the same time. A reserve already released or
 * consumed releases nothing, so running twice is harmless. Null when the reserve does not exist.
 */
export async function releaseReserve(tx: EntityManager, reserveId: string): Promise<ReleaseOutcome | null> {
  requireTransaction(tx);
  // `releaseAt` never changes, so the row as first read decides this without any lock.
  const [found] = await tx.getConnection().execute<{ business_id: string; livemode: boolean; release_at: Date; status: ReserveStatus; released: string; due: boolean; now: Date }[]>(
    `select business_id, livemode, release_at, status, released_amount_in_cents as released, release_at <= now() as due, now() as now
       from reserves where id = ?`,
    [reserveId],
    'all',
    tx.getTransactionContext(),
  );
  if (!found) return null;
  if (!found.due) {
    return { status: found.status, releasedAmountInCents: Number(found.released), notDueUntil: new Date(found.release_at).toISOString() };
  }
  const at = new Date(found.now);
  // The balance lock first, as every money move takes it, then the reserve row.
  const balance = await lockBalance(tx, { businessId: found.business_id, livemode: found.livemode });
  const reserve = await tx.findOneOrFail(Reserve, { id: reserveId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!HOLDING_STATUSES.includes(reserve.status)) {
    return { status: reserve.status, releasedAmountInCents: reserve.releasedAmountInCents };
  }
  const held = heldOf(reserve);
  postTransaction(tx, balance, {
    kind: 'reserve.release',
    referenceId: releaseReference(reserve.id, reserve.releasedAmountInCents),
    lines: transfer('reserved', 'available', held),
    at,
  });
  reserve.releasedAmountInCents += held;
  reserve.releasedAt = at;
  reserve.status = reserveStatusOf(reserve);
  return { status: reserve.status, releasedAmountInCents: reserve.releasedAmountInCents };
}
