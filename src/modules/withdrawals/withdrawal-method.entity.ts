import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';
import { destinationSchema, type Destination } from './destination.rules.js';

export type DestinationType = Destination['destinationType'];

/**
 * A payout destination the business set up in its dashboard (here: the admin CLI). A withdrawal is
 * paid only to one of these (`destinationKey` says when a request names one); they are per business and
 * serve both modes.
 */
export const WithdrawalMethod = defineEntity({
  name: 'WithdrawalMethod',
  tableName: 'withdrawal_methods',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    destinationType: p.string().$type<DestinationType>(),
    details: p.json<Record<string, string>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type WithdrawalMethod = InferEntity<typeof WithdrawalMethod>;

/**
 * A stored method as a destination, read through the withdrawal rules; null for a row those rules no
 * longer accept (stored before they applied), which therefore matches no withdrawal.
 */
export function methodDestination(method: Pick<WithdrawalMethod, 'destinationType' | 'details'>): Destination | null {
  const parsed = destinationSchema.safeParse({ destinationType: method.destinationType, destinationDetails: method.details });
  return parsed.success ? parsed.data : null;
}
