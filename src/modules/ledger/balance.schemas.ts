import { z } from 'zod';
import { cents, timestamp } from '../../http/envelope.js';

/**
 * `GET /api/balance`. Reserved money and money in pending or processing withdrawals sit in their own
 * accounts, so `availableInCents` never includes them.
 */
export const balanceResource = z
  .object({
    availableInCents: cents(),
    reservedInCents: cents(),
    pendingInCents: cents().meta({ description: 'In withdrawals still pending or processing.' }),
    currency: z.literal('USD'),
    livemode: z.boolean(),
    updatedAt: timestamp().nullable().meta({ description: 'Null until the business first moves money.' }),
  })
  .meta({ id: 'Balance' });
export type BalanceResource = z.output<typeof balanceResource>;
