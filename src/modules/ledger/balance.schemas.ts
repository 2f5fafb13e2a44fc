import { z } from 'zod';
import { cents, timestamp } from '../../http/envelope.js';

/**
 * `GET /api/balance`. Reserved money and money in pending or processing withdrawals sit in their own
 * accounts, so `availableInCents` never includes them. It is below zero only when a chargeback took more
 * than the balance held: the business owes that much, and later payments and releases pay it down.
 */
export const balanceResource = z
  .object({
    availableInCents: z
      .number()
      .int()
      .min(-Number.MAX_SAFE_INTEGER)
      .max(Number.MAX_SAFE_INTEGER)
      .meta({ description: 'Signed cents: negative while a chargeback leaves the business owing (withdrawals are refused until it is paid down).' }),
    reservedInCents: cents(),
    pendingInCents: cents().meta({ description: 'In withdrawals still pending or processing.' }),
    currency: z.literal('USD'),
    livemode: z.boolean(),
    updatedAt: timestamp().nullable().meta({ description: 'Null until the business first moves money.' }),
  })
  .meta({ id: 'Balance' });
export type BalanceResource = z.output<typeof balanceResource>;
