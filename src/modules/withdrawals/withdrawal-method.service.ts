import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids.js';
import { Business } from '../businesses/index.js';
import { destinationSchema, matchingDestination } from './destination.rules.js';
import { methodDestination, WithdrawalMethod, type DestinationType } from './withdrawal-method.entity.js';

/**
 * A business's payout destinations, which an operator registers (the admin CLI) and a withdrawal must
 * name one of. Kept with the withdrawals, whose rules they are checked by.
 */

/**
 * Registers a payout destination for a business, checked by the same rules as a withdrawal's. One the
 * business already has, in any spelling that names the same destination (`destinationKey`), is not
 * added twice: the existing method is returned with `added: false`.
 */
export async function addWithdrawalMethod(
  em: EntityManager,
  businessId: string,
  destinationType: DestinationType,
  details: Record<string, string>,
): Promise<{ method: WithdrawalMethod; added: boolean }> {
  await em.findOneOrFail(Business, { id: businessId });
  const destination = destinationSchema.parse({ destinationType, destinationDetails: details });
  const existing = await listWithdrawalMethods(em, businessId);
  const same = existing.find((method) => {
    const registered = methodDestination(method);
    return registered && matchingDestination([registered], destination);
  });
  if (same) return { method: same, added: false };
  const method = em.create(WithdrawalMethod, {
    id: newId('wm'),
    businessId,
    destinationType: destination.destinationType,
    details: destination.destinationDetails,
  });
  await em.flush();
  return { method, added: true };
}

export async function listWithdrawalMethods(em: EntityManager, businessId: string): Promise<WithdrawalMethod[]> {
  await em.findOneOrFail(Business, { id: businessId });
  return em.find(WithdrawalMethod, { businessId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/**
 * Removes a method: from then on no withdrawal can name it. Withdrawals already requested to it are
 * not touched: they were accepted while it was registered and are paid (or cancelled) as usual.
 */
export async function removeWithdrawalMethod(em: EntityManager, methodId: string): Promise<WithdrawalMethod> {
  const method = await em.findOneOrFail(WithdrawalMethod, { id: methodId });
  em.remove(method);
  await em.flush();
  return method;
}
