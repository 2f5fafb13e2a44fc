import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';

export const RESERVE_STATUSES = ['active', 'partially_released', 'released', 'consumed'] as const;
export type ReserveStatus = (typeof RESERVE_STATUSES)[number];
/** Statuses whose reserve still holds money (and so still counts in `reserved`). */
export const HOLDING_STATUSES: ReserveStatus[] = ['active', 'partially_released'];

/**
 * A share of one payment held back until `releaseAt`. The amount first held never changes; what has left
 * it is split into consumed (by refunds) and released (to available), so held = reserve − consumed −
 * released, and the database refuses any row where more has left than was held.
 */
export const Reserve = defineEntity({
  name: 'Reserve',
  tableName: 'reserves',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    livemode: p.boolean(),
    /** The checkout session whose payment this reserve holds a share of. */
    paymentId: p.uuid(),
    originalAmountInCents: p.bigint('number'),
    reserveAmountInCents: p.bigint('number'),
    reserveBps: p.integer(),
    consumedAmountInCents: p.bigint('number').default(0),
    releasedAmountInCents: p.bigint('number').default(0),
    status: p.string().$type<ReserveStatus>(),
    releaseAt: p.datetime(),
    releasedAt: p.datetime().nullable(),
    reservedAt: p.datetime(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type Reserve = InferEntity<typeof Reserve>;
