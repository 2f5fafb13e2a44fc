import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { cursorQuery, decodeCursor, encodeCursor } from '../../domain/cursor.js';
import type { Owner } from '../ledger/index.js';
import { DomainError } from '../../domain/errors.js';
import { rowCounts } from '../lists/index.js';
import { RESERVE_STATUSES, Reserve } from './reserve.entity.js';
import type { ReserveSummaryResource } from './reserve.schemas.js';

export const listReservesQuery = z.strictObject({
  status: z.enum(RESERVE_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: cursorQuery.optional(),
});
export type ListReservesQuery = z.output<typeof listReservesQuery>;

/** Newest first, by a keyset cursor on (reservedAt, id). */
export async function listReserves(em: EntityManager, owner: Owner, query: ListReservesQuery) {
  const where: FilterQuery<Reserve> = { businessId: owner.businessId, livemode: owner.livemode };
  if (query.status) where.status = query.status;
  if (query.cursor) {
    const cursor = decodeCursor(query.cursor, 'reserve');
    if (!cursor) throw new DomainError('validation_failed', { errors: [{ path: ['cursor'], message: 'Invalid cursor' }] });
    where.$or = [{ reservedAt: { $lt: cursor.createdAt } }, { reservedAt: cursor.createdAt, id: { $lt: cursor.id } }];
  }
  const rows = await em.find(Reserve, where, { orderBy: [{ reservedAt: 'desc' }, { id: 'desc' }], limit: query.limit + 1 });
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > query.limit && last ? encodeCursor({ createdAt: last.reservedAt, id: last.id }) : null };
}

export async function findReserve(em: EntityManager, owner: Owner, id: string): Promise<Reserve> {
  const reserve = await em.findOne(Reserve, { id, businessId: owner.businessId, livemode: owner.livemode });
  if (!reserve) throw new DomainError('reserve_not_found');
  return reserve;
}

/**
 * The spec's reserve summary. `activeReserveCount` counts reserves in status `active`; every reserve
 * still holding money (`active` or `partially_released`) is an upcoming release, and the next release
 * is the amount held by those due at the earliest `releaseAt`. Nothing here reads every holding reserve
 * (a business holds about ninety days of them): the counts come from the counters, the amount held from
 * the balance's `reserved` (which ledger verify holds equal to what the reserves hold), and the next
 * release from the first holding reserves by release time (`reserves_release_idx`).
 */
export async function reserveSummary(em: EntityManager, owner: Owner): Promise<ReserveSummaryResource> {
  const [counts, [next]] = await Promise.all([
    rowCounts(em, owner, 'reserve'),
    em.getConnection().execute<{ total: string | number | null; next_release_at: Date | null; next_amount: string | number | null }[]>(
      `with next as (
         select min(release_at) as at from reserves
         where business_id = ? and livemode = ? and status in ('active', 'partially_released'))
       select (select reserved from balances where business_id = ? and livemode = ?) as total,
              next.at as next_release_at,
              (select sum(reserve_amount_in_cents - consumed_amount_in_cents - released_amount_in_cents) from reserves
               where business_id = ? and livemode = ? and status in ('active', 'partially_released') and release_at = next.at) as next_amount
       from next`,
      [owner.businessId, owner.livemode, owner.businessId, owner.livemode, owner.businessId, owner.livemode],
    ),
  ]);
  const active = counts.get('active') ?? 0;
  return {
    totalReservedAmountInCents: Number(next?.total ?? 0),
    activeReserveCount: active,
    upcomingReleaseCount: active + (counts.get('partially_released') ?? 0),
    nextReleaseAt: next?.next_release_at ? new Date(next.next_release_at).toISOString() : null,
    nextReleaseAmountInCents: next?.next_amount === null || next?.next_amount === undefined ? null : Number(next.next_amount),
  };
}
