import type { EntityManager } from '@mikro-orm/postgresql';
import { pageOffset } from '../../domain/cursor.js';

/** A list's conditions as SQL over one table, with their parameters in order. */
export interface Filter {
  sql: string;
  params: unknown[];
}

/**
 * The ids of one numbered page: the ids alone are read and skipped (an index-only walk where the
 * visibility map allows), then the caller loads just the page's rows by id, so a deep page does not load
 * every row it skips. One more id than the page says whether another page follows.
 */
export async function pageIds(
  em: EntityManager,
  from: { table: string; filter: Filter; orderBy: string },
  page: number,
  limit: number,
): Promise<{ ids: string[]; hasNextPage: boolean }> {
  const rows = await em.getConnection().execute<{ id: string }[]>(
    `select id from ${from.table} where ${from.filter.sql} order by ${from.orderBy} limit ? offset ?`,
    [...from.filter.params, limit + 1, pageOffset(page, limit)],
  );
  return { ids: rows.slice(0, limit).map((row) => row.id), hasNextPage: rows.length > limit };
}
