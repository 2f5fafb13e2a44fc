import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from './business.entity.js';

export type DestinationType = 'wallet' | 'crypto';

/** A payout destination the business set up in its dashboard (here: the admin CLI). */
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
