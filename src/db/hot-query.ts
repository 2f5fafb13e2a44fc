import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Transaction } from 'kysely';
import type { Pool } from 'pg';

const pools = new WeakMap<object, Promise<Pool>>();

/**
 * One statement of a hot path (docs/decisions.md, Hot paths), written with `$1…$n` parameters and bound
 * by the driver, never formatted into the SQL text in this process. Outside a transaction it runs as a
 * named prepared statement on the ORM's own `pg` pool: PostgreSQL parses and plans it once per
 * connection. (MikroORM's `execute` inlines every parameter into the text, so each call is a new
 * statement to parse and plan, and it spreads an array into a list, where `$1::text[]` wants one value.)
 * Inside the caller's transaction it runs on that transaction's connection, bound the same way, so the
 * one-transaction rule holds and an array parameter means the same in both.
 */
export async function hotQuery<T extends object>(em: EntityManager, name: string, sql: string, params: unknown[]): Promise<T[]> {
  if (em.isInTransaction()) {
    const tx = em.getTransactionContext<Transaction<unknown>>()!;
    // A copy: Kysely freezes the parameters it is given, and they are the caller's array.
    const { rows } = await tx.executeQuery<T>(CompiledQuery.raw(sql, [...params]));
    return rows;
  }
  const connection = em.getConnection();
  let pool = pools.get(connection);
  if (!pool) pools.set(connection, (pool = connection.getNativeClient() as unknown as Promise<Pool>));
  const { rows } = await (await pool).query<T>({ name, text: sql, values: params });
  return rows;
}
