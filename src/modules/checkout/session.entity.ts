import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';
import type { ShippingAddress } from '../../../contracts/checkout.js';

export const SESSION_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export type { ShippingAddress };

export const CheckoutSession = defineEntity({
  name: 'CheckoutSession',
  tableName: 'checkout_sessions',
  properties: {
    id: p.uuid().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    livemode: p.boolean(),
    /** The API key that created the session: the spec's `userId`. */
    userId: p.string(),
    status: p.string().$type<SessionStatus>(),
    currency: p.string().default('USD'),
    subtotal: p.bigint('number'),
    fee: p.bigint('number'),
    total: p.bigint('number'),
    description: p.string().length(256),
    customerEmail: p.string(),
    askShipping: p.boolean().default(false),
    successUrl: p.string().length(256).nullable(),
    cancelUrl: p.string().length(256).nullable(),
    failureUrl: p.string().length(256).nullable(),
    metadata: p.json<Record<string, string | number | boolean>>(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    completedAt: p.datetime().nullable(),
    customerName: p.string().nullable(),
    shipping: p.json<ShippingAddress>().nullable(),
    cardBrand: p.string().nullable(),
    cardLast4: p.string().nullable(),
    /** The payment attempt (its workflow's id for it) that moved the session to `processing`. */
    paymentAttemptId: p.string().nullable(),
    failureCode: p.string().nullable(),
    failureMessage: p.string().nullable(),
    /** The processor's charge, for refunds; never card data. */
    processorChargeId: p.string().nullable(),
  },
});
export type CheckoutSession = InferEntity<typeof CheckoutSession>;

/** A session as created, before any payment: what a create writes and answers with. */
export type NewSession = Omit<
  CheckoutSession,
  'customerName' | 'shipping' | 'cardBrand' | 'cardLast4' | 'paymentAttemptId' | 'failureCode' | 'failureMessage' | 'processorChargeId'
>;

export const SessionItem = defineEntity({
  name: 'SessionItem',
  tableName: 'session_items',
  properties: {
    id: p.string().primary(),
    sessionId: () => p.manyToOne(CheckoutSession).mapToPk().fieldName('session_id'),
    position: p.integer(),
    name: p.string().length(100),
    description: p.string().length(256).nullable(),
    price: p.bigint('number'),
    quantity: p.integer(),
    imageUrl: p.string().length(256).nullable(),
    subtotal: p.bigint('number'),
  },
});
export type SessionItem = InferEntity<typeof SessionItem>;
