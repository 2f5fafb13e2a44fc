import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Reserve } from '../reserves/index.js';
import { Refund } from './refund.entity.js';

/** One reserve's share of a refund: what `consumeReserves` took from it when the refund was made. */
export const RefundReservePart = defineEntity({
  name: 'RefundReservePart',
  tableName: 'refund_reserve_parts',
  properties: {
    refundId: () => p.manyToOne(Refund).mapToPk().primary().fieldName('refund_id'),
    reserveId: () => p.manyToOne(Reserve).mapToPk().primary().fieldName('reserve_id'),
    amountInCents: p.bigint('number'),
  },
});
export type RefundReservePart = InferEntity<typeof RefundReservePart>;
