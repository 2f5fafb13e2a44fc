import { z } from 'zod';
import { cursorQuery } from '../../domain/cursor.js';
import { cents, prefixedId, timestamp } from '../../http/envelope.js';
import { BALANCE_TRANSACTION_ID, BALANCE_TRANSACTION_TYPES, BALANCE_TYPES } from './balance-transaction.rules.js';
import { queryInstant } from '../../http/validate.js';

/** An ISO 8601 instant (any offset) or a date, which means its midnight UTC. */
const instant = queryInstant().meta({ example: '2026-11-01T00:00:00Z' });

export const listBalanceTransactionsQuery = z.strictObject({
  type: z.enum(BALANCE_TRANSACTION_TYPES).optional(),
  createdFrom: instant.optional().meta({ description: 'Only items created at or after this instant.' }),
  createdTo: instant.optional().meta({ description: 'Only items created before this instant (exclusive).' }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: cursorQuery.optional(),
});
export type ListBalanceTransactionsQuery = z.output<typeof listBalanceTransactionsQuery>;

/** Signed cents: positive credits the business. */
const signedCents = () => z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

export const fundingResource = z.object({
  from: z
    .union([z.literal('available'), z.literal('owed'), prefixedId('res')])
    .meta({ description: '`available`, the reserve that gave this share, or (a chargeback only) `owed`: what neither covered, taken below zero from `available`.' }),
  amountInCents: cents(),
});

export const balanceTransactionResource = z
  .object({
    id: z.string().regex(BALANCE_TRANSACTION_ID).meta({ example: 'txn_0190f4c2a7e07b3c9d1e2f3a4b5c6d40_a' }),
    type: z.enum(BALANCE_TRANSACTION_TYPES),
    amountInCents: signedCents().meta({ description: 'Signed: positive credits the business. A payment shows its gross share, fee included.' }),
    feeInCents: cents().meta({ description: 'The fee taken from `amountInCents` (payments only; 0 otherwise).' }),
    netInCents: signedCents().meta({ description: '`amountInCents − feeInCents`: the change to `balanceType`.' }),
    balanceType: z.enum(BALANCE_TYPES),
    sourceId: z.string().meta({ description: 'The checkout session, refund, reserve, withdrawal or dispute id.' }),
    createdAt: timestamp(),
    availableOn: timestamp().meta({ description: 'When the money is (or was) available: `releaseAt` for a reserve hold, otherwise `createdAt`.' }),
    description: z.string(),
    funding: z
      .array(fundingResource)
      .optional()
      .meta({
        description:
          'Refund and dispute items only: how the whole refund (or the chargeback, amount and fee together) was funded, from `available`, from each reserve, and what was left `owed`.',
      }),
  })
  .meta({ id: 'BalanceTransaction' });
export type BalanceTransactionResource = z.output<typeof balanceTransactionResource>;

export const balanceTransactionListResource = z.object({
  items: z.array(balanceTransactionResource),
  meta: z.object({
    hasMore: z.boolean(),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
  }),
});
