import { TransactionPropagation } from '@mikro-orm/postgresql';

/**
 * `em.transactional` options for a service that a route calls inside its own transaction: join it
 * rather than open a savepoint in it (MikroORM's default), which cost two round trips on every request.
 * Called on its own, the service still gets a transaction of its own.
 */
export const JOIN_TRANSACTION = { propagation: TransactionPropagation.REQUIRED } as const;
