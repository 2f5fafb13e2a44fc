import type { EntityManager } from '@mikro-orm/postgresql';
import { COUNT_CAP, type ListTotal } from '../../domain/cursor.js';
import type { Owner } from '../ledger/index.js';

/**
 * List totals that cost the same for a business's first row and its millionth. Exact totals by status
 * (or, for events, by type) come from `row_counts` and the deltas not yet folded into it, which triggers
 * keep in the same transaction as the rows they count (Migration20261126020000_row_counts). A total
 * under a filter no counter keeps (a search, a date range) is counted up to `COUNT_CAP` and then said
 * to be capped.
 */
export type CountedResource = 'checkout_session' | 'refund' | 'withdrawal' | 'reserve' | 'event';


/** One business's counts of `resource`, by key: the folded count plus every delta not yet folded. */
export async function rowCounts(em: EntityManager, owner: Owner, resource: CountedResource): Promise<Map<string, number>> {
  const params = [owner.businessId, owner.livemode, resource];
  const rows = await em.getConnection().execute<{ key: string; n: string | number }[]>(
    `select key, sum(n) as n from (
       select key, count as n from row_counts where business_id = ? and livemode = ? and resource = ?
       union all
       select key, delta from row_count_deltas where business_id = ? and livemode = ? and resource = ?) c
     group by key`,
    [...params, ...params],
  );
  return new Map(rows.map((row) => [row.key, Number(row.n)]));
}

/** The exact total of the given keys (all of them when none is given). */
export async function countedTotal(em: EntityManager, owner: Owner, resource: CountedResource, keys?: readonly string[]): Promise<ListTotal> {
  const counts = await rowCounts(em, owner, resource);
  const chosen = keys ?? [...counts.keys()];
  return { total: chosen.reduce((sum, key) => sum + (counts.get(key) ?? 0), 0), capped: false };
}

/**
 * The rows `sql` selects (any select list; it is wrapped), counted up to `COUNT_CAP`: the cost of a
 * filtered total is bounded by the cap, not by the business's history.
 */
export async function cappedTotal(em: EntityManager, sql: string, params: unknown[]): Promise<ListTotal> {
  const [row] = await em.getConnection().execute<{ n: number }[]>(
    `select count(*)::int as n from (${sql} limit ${COUNT_CAP + 1}) capped`,
    params,
  );
  return row.n > COUNT_CAP ? { total: COUNT_CAP, capped: true } : { total: row.n, capped: false };
}
