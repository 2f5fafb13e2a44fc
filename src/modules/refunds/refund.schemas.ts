import { z } from 'zod';
import { REFUND_STATUSES } from './refund.entity.js';

export const createRefundInput = z.object({
  checkoutSessionId: z.string({ error: 'Checkout session id is required' }).min(1, { error: 'Checkout session id is required' }),
  reason: z.string().max(500, { error: 'Reason must be at most 500 characters' }).nullish(),
});
export type CreateRefundInput = z.output<typeof createRefundInput>;

export const listRefundsQuery = z.object({
  /** The checkout session id (the spec calls it the transaction). */
  transactionId: z.string().min(1).optional(),
  status: z.enum(REFUND_STATUSES, { error: `Status must be one of ${REFUND_STATUSES.join(', ')}` }).optional(),
  page: z.coerce.number().int().min(1, { error: 'Page must be at least 1' }).default(1),
  limit: z.coerce.number().int().min(1, { error: 'Limit must be 1-100' }).max(100, { error: 'Limit must be 1-100' }).default(20),
});
export type ListRefundsQuery = z.output<typeof listRefundsQuery>;
