import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeCursor, encodeCursor, pageMeta, type CursorPosition, type ListTotal } from '../../domain/cursor.js';
import { DomainError } from '../../domain/errors.js';
import { parse } from '../../domain/validation.js';
import type { Caller } from '../businesses/index.js';
import { pageIds, type Filter, cappedTotal, countedTotal } from '../lists/index.js';
import { CheckoutSession } from './session.entity.js';
import { listSessionsQuery, type ListSessionsQuery } from './session.schemas.js';

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
/** A whole e-mail address as a search term (a part of one, such as `ada@`, is not). */
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;


/**
 * The query's conditions. Each is served by an index: the business's sessions newest first
 * (`checkout_sessions_list_idx`), or those of one status (`checkout_sessions_status_list_idx`); a search
 * for a whole e-mail address by the customer's address (`checkout_sessions_email_idx`, and the trigram
 * index for the description), any other search by the trigram index on e-mail and description
 * (`checkout_sessions_search_idx`), whose cost grows with how many sessions share the term's rarest three
 * characters: a whole address is what stays flat.
 */
function filterOf(caller: Caller, query: ListSessionsQuery): Filter & { counted: boolean } {
  const conditions = ['business_id = ?', 'livemode = ?'];
  const params: unknown[] = [caller.businessId, caller.livemode];
  if (query.status !== 'all') conditions.push('status = ?'), params.push(query.status);
  const from = query.from ?? query.startDate;
  const to = query.to ?? query.endDate;
  if (from) conditions.push('created_at >= ?'), params.push(new Date(from));
  if (to) conditions.push('created_at < ?'), params.push(new Date(to));
  if (query.search) {
    const pattern = `%${escapeLike(query.search)}%`;
    // A whole address finds that customer's sessions through the e-mail index, whatever the history;
    // a part of one (or anything else) is a substring search through the trigram index.
    conditions.push(EMAIL_ADDRESS.test(query.search) ? '(lower(customer_email) = lower(?) or description ilike ?)' : '(customer_email ilike ? or description ilike ?)');
    params.push(EMAIL_ADDRESS.test(query.search) ? query.search : pattern, pattern);
  }
  // Only a status (or none) is a total the counters keep; a search or a date range is counted, capped.
  return { sql: conditions.join(' and '), params, counted: !query.search && !from && !to };
}

/** Rows after a cursor's position, newest first. */
const AFTER = '(created_at, id) < (?, ?)';

/**
 * `GET /checkout/sessions`: newest first, by page number or by cursor. No request counts the business's
 * sessions: the total comes from the counters (or, under a search or date range, is counted up to a
 * cap), a cursor carries the number of the page it leads to, and a page number skips rows in the index
 * alone (ids first, then the page's rows by id), no deeper than `MAX_PAGE_OFFSET`.
 */
export async function listSessions(em: EntityManager, caller: Caller, rawQuery: unknown) {
  const query: ListSessionsQuery = parse(listSessionsQuery, rawQuery);
  const filter = filterOf(caller, query);
  const cursor = query.cursor ? decodeCursor(query.cursor, 'session') : null;
  if (query.cursor && !cursor) throw new DomainError('validation_failed', { errors: [{ path: ['cursor'], message: 'Invalid cursor' }] });

  const total: Promise<ListTotal> = filter.counted
    ? countedTotal(em, caller, 'checkout_session', query.status === 'all' ? undefined : [query.status])
    : cappedTotal(em, `select 1 from checkout_sessions where ${filter.sql}`, filter.params);
  const page = cursor ? (cursor.page ?? (await pageOfLegacyCursor(em, filter, cursor, query.limit))) : query.page;
  const { ids, hasNextPage } = cursor
    ? await idsAfter(em, filter, cursor, query.limit)
    : await pageIds(em, { table: 'checkout_sessions', filter, orderBy: 'created_at desc, id desc' }, page, query.limit, total);
  const rows = ids.length ? await em.find(CheckoutSession, { id: { $in: ids } }, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }) : [];
  const last = rows.at(-1);
  return {
    items: rows,
    meta: pageMeta(await total, page, query.limit, hasNextPage),
    nextCursor: hasNextPage && last ? encodeCursor({ createdAt: last.createdAt, id: last.id, page: page + 1 }) : null,
  };
}

/** The page after a cursor's position: a keyset read, which skips nothing however deep the page. */
async function idsAfter(em: EntityManager, filter: Filter, cursor: CursorPosition, limit: number) {
  const found = await em.getConnection().execute<{ id: string }[]>(
    `select id from checkout_sessions where ${filter.sql} and ${AFTER} order by created_at desc, id desc limit ?`,
    [...filter.params, cursor.createdAt, cursor.id, limit + 1],
  );
  return { ids: found.slice(0, limit).map((row) => row.id), hasNextPage: found.length > limit };
}

/**
 * The page a cursor written before cursors carried their page leads to: the rows up to it, counted
 * (capped). Such cursors live as long as a client's walk through a list that was open during the deploy.
 */
async function pageOfLegacyCursor(em: EntityManager, filter: Filter, cursor: CursorPosition, limit: number): Promise<number> {
  const seen = await cappedTotal(em, `select 1 from checkout_sessions where ${filter.sql} and (created_at, id) >= (?, ?)`, [
    ...filter.params,
    cursor.createdAt,
    cursor.id,
  ]);
  return Math.floor(seen.total / limit) + 1;
}
