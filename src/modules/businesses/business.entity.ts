import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const RATE_LIMIT_TIERS = ['standard', 'growth', 'enterprise'] as const;
export type RateLimitTier = (typeof RATE_LIMIT_TIERS)[number];

/** A merchant. Its fee, reserve and rate-limit configuration lives on the row. */
export const Business = defineEntity({
  name: 'Business',
  tableName: 'businesses',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    approved: p.boolean().default(false),
    /** Percentage fee in basis points (2.9 % = 290). */
    feeBps: p.integer(),
    feeFixedCents: p.integer(),
    /** Share of each payment's subtotal held in a reserve, in basis points. */
    reserveBps: p.integer(),
    reserveHoldMs: p.bigint('number'),
    /** What each chargeback costs the business on top of its amount (returned with neither outcome). */
    disputeFeeCents: p.integer().default(1500),
    rateLimitTier: p.string().$type<RateLimitTier>(),
    /** Only for the enterprise tier: its custom budget. */
    rateLimitPerMinute: p.integer().nullable(),
    rateLimitBurst: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Business = InferEntity<typeof Business>;
