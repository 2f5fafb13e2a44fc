import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The transaction rule. One unit of work (a request, an activity, a CLI command) forks one
 * EntityManager and opens one transaction on it at its edge: `em.fork().transactional(async (tx) => …)`,
 * with no options. Everything it calls inside takes that `tx` as a parameter and never opens, joins or
 * nests a transaction of its own.
 *
 * Why so strict: MikroORM's `transactional(cb, options)` writes the transaction it joined into the
 * `options` object it is given (`options.ctx ??= …`). A module-level options constant shared by every
 * call (the old `JOIN_TRANSACTION`) therefore kept the first request's transaction for the life of the
 * process, and every later call that opened a transaction of its own tried to make a savepoint in that
 * long-finished one: 500 "Transaction is already committed / rolled back" on every webhook update and
 * delete. Passing `tx` explicitly leaves nothing to join and nothing to leak between requests.
 */
export function requireTransaction(tx: EntityManager): void {
  if (!tx.isInTransaction()) {
    throw new Error('called outside a transaction: open one at the edge with em.fork().transactional(async (tx) => …) and pass tx');
  }
}
