import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { cursorQuery, decodeCursor, encodeCursor } from '../../domain/cursor.js';
import type { Owner } from '../ledger/ledger.service.js';
import { DomainError } from '../../domain/errors.js';
import { RESERVE_STATUSES, Reserve } from './reserve.entity.js';
import type { ReserveSummaryResource } from './reserve.schemas.js';

export const listReservesQuery = z.object({
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

interface SummaryRow {
  total: string | number;
  active: string | number;
  upcoming: string | number;
  next_release_at: Date | null;
  next_amount: string | number | null;
}

/**
 * The spec's reserve summary. `activeReserveCount` counts reserves in status `active`; every reserve
 * still holding money (`active` or `partially_released`) is an upcoming release, and the next release
 * is the amount held by those due at the earliest `releaseAt`.
 */
export async function reserveSummary(em: EntityManager, owner: Owner): Promise<ReserveSummaryResource> {
  const [row] = await em.getConnection().execute<SummaryRow[]>(
    `with holding as (
       select release_at, reserve_amount_in_cents - consumed_amount_in_cents - released_amount_in_cents as held, status
       from reserves where business_id = ? and livemode = ? and status in ('active', 'partially_released'))
     select coalesce(sum(held), 0) as total,
            count(*) filter (where status = 'active') as active,
            count(*) as upcoming,
            min(release_at) as next_release_at,
            (select sum(h.held) from holding h where h.release_at = (select min(release_at) from holding)) as next_amount
     from holding`,
    [owner.businessId, owner.livemode],
  );
  return {
    totalReservedAmountInCents: Number(row.total),
    activeReserveCount: Number(row.active),
    upcomingReleaseCount: Number(row.upcoming),
    nextReleaseAt: row.next_release_at ? new Date(row.next_release_at).toISOString() : null,
    nextReleaseAmountInCents: row.next_amount === null ? null : Number(row.next_amount),
  };
}
