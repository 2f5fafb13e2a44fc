import type { EntityManager } from '@mikro-orm/postgresql';
import { MAX_PAGE_OFFSET, tooDeepPage, type ListTotal } from '../../domain/cursor.js';

/** A list's conditions as SQL over one table, with their parameters in order. */
export interface Filter {
  sql: string;
  params: unknown[];
}

/**
 * The ids of one numbered page: the ids alone are read and skipped (an index-only walk where the
 * visibility map allows), then the caller loads just the page's rows by id, so a deep page does not load
 * every row it skips. One more id than the page says whether another page follows. A page deeper than
 * `MAX_PAGE_OFFSET` rows is read only when the list's total says it is past the end (then it is empty);
 * otherwise it is refused, and the cursor reaches it.
 */
export async function pageIds(
  em: EntityManager,
  from: { table: string; filter: Filter; orderBy: string },
  page: number,
  limit: number,
  total: Promise<ListTotal>,
): Promise<{ ids: string[]; hasNextPage: boolean }> {
  // The caller awaits the total after this; should this throw first, its failure must not go unhandled.
  total.catch(() => undefined);
  const offset = (page - 1) * limit;
  if (offset > MAX_PAGE_OFFSET) {
    const { total: rows, capped } = await total;
    if (!capped && offset >= rows) return { ids: [], hasNextPage: false };
    throw tooDeepPage();
  }
  const found = await em.getConnection().execute<{ id: string }[]>(
    `select id from ${from.table} where ${from.filter.sql} order by ${from.orderBy} limit ? offset ?`,
    [...from.filter.params, limit + 1, offset],
  );
  return { ids: found.slice(0, limit).map((row) => row.id), hasNextPage: found.length > limit };
}
