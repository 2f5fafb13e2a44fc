import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';
import { CheckoutSession } from '../checkout/index.js';

export const REFUND_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const Refund = defineEntity({
  name: 'Refund',
  tableName: 'refunds',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    livemode: p.boolean(),
    checkoutSessionId: () => p.manyToOne(CheckoutSession).mapToPk().fieldName('checkout_session_id'),
    amountInCents: p.bigint('number'),
    /** How the refund was funded: `available` first, then the oldest reserves. */
    fromAvailableInCents: p.bigint('number'),
    fromReservesInCents: p.bigint('number'),
    reason: p.text().nullable(),
    status: p.string().$type<RefundStatus>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    processingAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    failedAt: p.datetime().nullable(),
    processorRefundId: p.string().nullable(),
    failureReason: p.text().nullable(),
  },
});
export type Refund = InferEntity<typeof Refund>;
