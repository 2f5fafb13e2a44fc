import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { DomainError } from '../../domain/errors.js';
import type { Owner } from '../ledger/index.js';
import { LEDGER_KINDS, pairsOf, parseBalanceTransactionId, type BalanceTransactionType } from './balance-transaction.rules.js';
import type { ListBalanceTransactionsQuery } from './balance-transaction.schemas.js';
import { itemsOf, type ItemRow } from './balance-transaction.view.js';

export interface ItemFilter {
  type?: BalanceTransactionType;
  createdFrom?: Date;
  createdTo?: Date;
  /** Keyset: items strictly after this one in the list's order (newest first). */
  after?: { createdAt: Date; id: string };
  one?: { ledgerTransactionId: string; balanceType: string };
}

/**
 * One row per ledger transaction and balance type it moves (the three business balances; a payment's
 * `available` row even when its whole share was held, since it carries the fee). The ledger's
 * (business_id, livemode, created_at) index walks the business's transactions newest first; each one's
 * entries come from the transaction index. The item id is computed here too, for the keyset order.
 */
async function itemRows(em: EntityManager, owner: Owner, filter: ItemFilter, limit: number): Promise<ItemRow[]> {
  const inner: string[] = [];
  const params: unknown[] = [owner.businessId, owner.livemode];
  const where = (clause: string, ...values: unknown[]) => {
    inner.push(clause);
    params.push(...values);
  };
  where(`t.kind in (${LEDGER_KINDS.map(() => '?').join(', ')})`, ...LEDGER_KINDS);
  if (filter.type) {
    const pairs = pairsOf(filter.type);
    if (pairs.length === 0) return [];
    where(
      `(${pairs.map((p) => (p.balanceType ? '(t.kind = ? and s.account = ?)' : 't.kind = ?')).join(' or ')})`,
      ...pairs.flatMap((p) => (p.balanceType ? [p.kind, p.balanceType] : [p.kind])),
    );
  }
  if (filter.createdFrom) where('t.created_at >= ?', filter.createdFrom);
  if (filter.createdTo) where('t.created_at < ?', filter.createdTo);
  // Lets the index skip everything newer than the cursor; the exact keyset test is on the outer query.
  if (filter.after) where('t.created_at <= ?', filter.after.createdAt);
  if (filter.one) where('t.id = ? and s.account = ?', filter.one.ledgerTransactionId, filter.one.balanceType);
  const outer = filter.after ? 'and (i.created_at, i.id) < (?, ?)' : '';
  if (filter.after) params.push(filter.after.createdAt, filter.after.id);
  params.push(limit);
  return em.getConnection().execute<ItemRow[]>(
    `select i.* from (
       select 'txn_' || substr(t.id, 5) || '_' || left(s.account, 1) as id, t.kind, t.reference_id, t.created_at, s.account,
              s.amount::text as amount,
              case when t.kind = 'payment' and s.account = 'available'
                then coalesce((select sum(f.amount) from ledger_entries f where f.transaction_id = t.id and f.account = 'fee_revenue'), 0)
                else 0 end::text as fee
       from ledger_transactions t
       cross join lateral (
         select a.account, coalesce(sum(e.amount), 0) as amount
         from (values ('available'), ('reserved'), ('pending_withdrawal')) as a (account)
         left join ledger_entries e on e.transaction_id = t.id and e.account = a.account
         group by a.account
       ) s
       where t.business_id = ? and t.livemode = ? and ${inner.join(' and ')}
     ) i
     where (i.amount::bigint <> 0 or (i.kind = 'payment' and i.account = 'available')) ${outer}
     order by i.created_at desc, i.id desc
     limit ?`,
    params,
  );
}

/** Newest first, by a keyset cursor on (createdAt, id): stable while new money moves are posted. */
export async function listBalanceTransactions(em: EntityManager, owner: Owner, query: ListBalanceTransactionsQuery) {
  const filter: ItemFilter = {
    type: query.type,
    createdFrom: query.createdFrom ? new Date(query.createdFrom) : undefined,
    createdTo: query.createdTo ? new Date(query.createdTo) : undefined,
  };
  if (query.cursor) {
    const cursor = decodeCursor(query.cursor, 'balanceTransaction');
    if (!cursor) throw new DomainError('validation_failed', { errors: [{ path: ['cursor'], message: 'Invalid cursor' }] });
    filter.after = cursor;
  }
  const rows = await itemRows(em, owner, filter, query.limit + 1);
  const items = await itemsOf(em, rows.slice(0, query.limit));
  const last = items.at(-1);
  const hasMore = rows.length > query.limit;
  return { items, meta: { hasMore, nextCursor: hasMore && last ? encodeCursor({ createdAt: new Date(last.createdAt), id: last.id }) : null } };
}

export async function findBalanceTransaction(em: EntityManager, owner: Owner, id: string) {
  const one = parseBalanceTransactionId(id);
  const rows = one ? await itemRows(em, owner, { one }, 1) : [];
  if (rows.length === 0) throw new DomainError('balance_transaction_not_found');
  return (await itemsOf(em, rows))[0];
}

/** Every item of a business in [from, to), oldest first: the admin CLI's export. */
export async function exportBalanceTransactions(em: EntityManager, owner: Owner, range: { from?: Date; to?: Date }) {
  const rows = await itemRows(em, owner, { createdFrom: range.from, createdTo: range.to }, Number.MAX_SAFE_INTEGER);
  return (await itemsOf(em, rows)).reverse();
}
