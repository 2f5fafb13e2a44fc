import { z } from 'zod';
import { cents, prefixedId, timestamp } from '../../http/envelope.js';
import { REFUND_STATUSES } from './refund.entity.js';
import { UNKNOWN_FIELD_ADVICE } from '../../domain/unknown-fields.js';

/**
 * A refund has no amount: it is of the whole session, its `total` (the spec: one refund per session). A
 * client that sends one expects a partial refund, and must not get the whole one instead.
 */
export const REFUND_AMOUNT_ADVICE = 'A refund is always of the whole session, its total (one refund per session): leave the amount out';

export const createRefundInput = z
  .strictObject({
    checkoutSessionId: z.string({ error: 'Checkout session id is required' }).min(1, { error: 'Checkout session id is required' }),
    reason: z.string().max(500, { error: 'Reason must be at most 500 characters' }).nullish(),
  })
  .register(UNKNOWN_FIELD_ADVICE, { amount: REFUND_AMOUNT_ADVICE, amountInCents: REFUND_AMOUNT_ADVICE });
export type CreateRefundInput = z.output<typeof createRefundInput>;

export const listRefundsQuery = z.strictObject({
  /** The checkout session id (the spec calls it the transaction). */
  transactionId: z.string().min(1).optional(),
  status: z.enum(REFUND_STATUSES, { error: `Status must be one of ${REFUND_STATUSES.join(', ')}` }).optional(),
  page: z.coerce.number().int().min(1, { error: 'Page must be at least 1' }).default(1),
  limit: z.coerce.number().int().min(1, { error: 'Limit must be 1-100' }).max(100, { error: 'Limit must be 1-100' }).default(20),
});
export type ListRefundsQuery = z.output<typeof listRefundsQuery>;

/**
 * The spec's refund. `createdAt` and `requestedAt` carry the same value (the spec names the field both
 * ways); `completedAt` and `failureReason` appear only when they apply.
 */
export const refundResource = z
  .object({
    id: prefixedId('ref'),
    checkoutSessionId: z.uuid(),
    amountInCents: cents().meta({ description: "The session's total." }),
    reason: z.string().nullable(),
    status: z.enum(REFUND_STATUSES),
    livemode: z.boolean(),
    createdAt: timestamp(),
    requestedAt: timestamp(),
    completedAt: timestamp().optional(),
    failureReason: z.string().optional(),
  })
  .meta({ id: 'Refund' });
export type RefundResource = z.output<typeof refundResource>;

export const refundPagination = z
  .object({
    page: z.number().int().min(1),
    limit: z.number().int().min(1).max(100),
    total: z.number().int().min(0),
    totalPages: z.number().int().min(0),
  })
  .meta({ id: 'RefundPagination' });

/** `refund.*` share the spec's `refund.created` shape (refund.events.ts writes them), for the document's webhooks. */
const refundPayload = (extra: z.ZodRawShape) =>
  z.object({ refundId: prefixedId('ref'), sessionId: z.uuid(), amount: cents(), reason: z.string().nullable(), status: z.enum(REFUND_STATUSES), ...extra, timestamp: timestamp() });
export const refundEventPayloads = {
  'refund.created': refundPayload({}),
  'refund.completed': refundPayload({ processorRefundId: z.string().nullable() }),
  'refund.failed': refundPayload({ failureReason: z.string().nullable() }),
};
