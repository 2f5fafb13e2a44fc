import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';

const pools = new WeakMap<object, Promise<Pool>>();

/**
 * One statement of a hot path (docs/decisions.md, Hot paths), written with `$1…$n` parameters. Outside a transaction it runs
 * as a named prepared statement on the ORM's own `pg` pool: PostgreSQL parses and plans it once per
 * connection, and nothing is formatted into the SQL text in this process. (MikroORM's `execute` inlines
 * every parameter into the text, so each call is a new statement to parse and plan.) Inside the caller's
 * transaction it runs through that transaction (`em.execute`), so the one-transaction rule holds.
 * Parameters are always values bound by the driver or escaped by the ORM, never text built here.
 */
export async function hotQuery<T extends object>(em: EntityManager, name: string, sql: string, params: unknown[]): Promise<T[]> {
  if (em.isInTransaction()) {
    const order: unknown[] = [];
    const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
      order.push(params[Number(n) - 1]);
      return '?';
    });
    return em.execute<T[]>(text, order);
  }
  const connection = em.getConnection();
  let pool = pools.get(connection);
  if (!pool) pools.set(connection, (pool = connection.getNativeClient() as unknown as Promise<Pool>));
  const { rows } = await (await pool).query<T>({ name, text: sql, values: params });
  return rows;
}
