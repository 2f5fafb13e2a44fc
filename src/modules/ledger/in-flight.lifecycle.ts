import { LockMode, type EntityManager, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';
import { requireTransaction } from '../../db/transaction.js';
import type { Balance } from './ledger.entity.js';
import { lockBalance } from './ledger.service.js';

/** A record whose money is in flight while it is `processing`: a refund or a withdrawal. */
export interface InFlightRecord {
  id: string;
  businessId: string;
  livemode: boolean;
  status: string;
  processingAt?: Date | null;
  updatedAt: Date;
}

/**
 * The one way a refund or withdrawal starts `processing`: `pending` → `processing` in a single
 * conditional update (the row lock a concurrent cancel holds makes it wait, then re-check the status the
 * cancel committed), so a retried activity moves nothing twice. Returns the record afterwards, whatever
 * its status.
 */
export async function startInFlight<T extends InFlightRecord>(em: EntityManager, entity: EntityName<T>, id: string): Promise<T> {
  const now = new Date();
  const byId = { id } as FilterQuery<T>;
  await em.nativeUpdate(entity, { id, status: 'pending' } as FilterQuery<T>, { status: 'processing', processingAt: now, updatedAt: now } as Partial<T>);
  return em.findOneOrFail(entity, byId, { refresh: true });
}

/**
 * The one way a `processing` refund or withdrawal ends (`completed` or `failed`), in the transaction the
 * activity opened. Locks in the order every money move of the business uses (its balance row, then the
 * record), and applies the transition only while the record is still `processing`: a retried activity or
 * a replayed workflow finds it already moved and gets the record back as it is.
 */
export async function finishInFlight<T extends InFlightRecord>(
  tx: EntityManager,
  entity: EntityName<T>,
  id: string,
  apply: (tx: EntityManager, record: T, balance: Balance, now: Date) => void | Promise<void>,
): Promise<T> {
  requireTransaction(tx);
  const byId = { id } as FilterQuery<T>;
  const { businessId, livemode } = await tx.findOneOrFail(entity, byId);
  const balance = await lockBalance(tx, { businessId, livemode });
  const record = await tx.findOneOrFail(entity, byId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (record.status !== 'processing') return record;
  const now = new Date();
  record.updatedAt = now;
  await apply(tx, record, balance, now);
  return record;
}
