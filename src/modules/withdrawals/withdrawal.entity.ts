import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';
import type { DestinationType } from './withdrawal-method.entity.js';

export const WITHDRAWAL_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

export const Withdrawal = defineEntity({
  name: 'Withdrawal',
  tableName: 'withdrawals',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    livemode: p.boolean(),
    amountInCents: p.bigint('number'),
    status: p.string().$type<WithdrawalStatus>(),
    destinationType: p.string().$type<DestinationType>(),
    /** The destination as JSON text: the spec returns it as a string, so it is stored as the exact text returned. */
    destinationDetails: p.text(),
    notes: p.text().nullable(),
    requestedAt: p.datetime(),
    updatedAt: p.datetime(),
    processingAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
    failedAt: p.datetime().nullable(),
    processorTransactionId: p.string().nullable(),
    transactionHash: p.string().nullable(),
    failureReason: p.text().nullable(),
  },
});
export type Withdrawal = InferEntity<typeof Withdrawal>;
