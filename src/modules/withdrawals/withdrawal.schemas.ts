import { z } from 'zod';
import { dollarsToCents } from '../../domain/money.js';
import { dollars } from '../../domain/type-messages.js';
import { cryptoDetails, walletDetails } from './destination.rules.js';
import { cents, decimalDollars, pageMetaSchema, prefixedId, timestamp } from '../../http/envelope.js';
import { WITHDRAWAL_STATUSES } from './withdrawal.entity.js';

/** Far above any real balance; keeps every accepted amount exact as whole cents. */
export const MAX_WITHDRAWAL_DOLLARS = 999_999_999.99;

/** Dollars as a JSON number, more than zero, at most two decimals: becomes integer cents here, once. */
const amount = dollars()
  .gt(0, { error: 'Amount must be greater than 0' })
  .max(MAX_WITHDRAWAL_DOLLARS, { error: `Amount must not exceed ${MAX_WITHDRAWAL_DOLLARS}` })
  .meta({ multipleOf: 0.01, description: 'Dollars, at most two decimals.', example: 125.5 })
  .transform((dollars, ctx) => {
    const cents = dollarsToCents(dollars);
    if (cents === null || cents === 0) {
      ctx.addIssue({ code: 'custom', message: 'Amount must have at most 2 decimal places' });
      return z.NEVER;
    }
    return cents;
  });

const common = {
  amount,
  notes: z.string().max(1000, { error: 'Notes must be at most 1000 characters' }).optional(),
};

export const createWithdrawalInput = z.discriminatedUnion(
  'destinationType',
  [
    z.strictObject({ ...common, destinationType: z.literal('wallet'), destinationDetails: walletDetails }),
    z.strictObject({ ...common, destinationType: z.literal('crypto'), destinationDetails: cryptoDetails }),
  ],
  { error: 'Destination type must be wallet or crypto' },
);
export type CreateWithdrawalInput = z.output<typeof createWithdrawalInput>;

export const listWithdrawalsQuery = z.strictObject({
  status: z.enum(WITHDRAWAL_STATUSES, { error: `Status must be one of ${WITHDRAWAL_STATUSES.join(', ')}` }).optional(),
  page: z.coerce.number().int().min(1, { error: 'Page must be at least 1' }).default(1),
  limit: z.coerce.number().int().min(1, { error: 'Limit must be 1-100' }).max(100, { error: 'Limit must be 1-100' }).default(20),
});
export type ListWithdrawalsQuery = z.output<typeof listWithdrawalsQuery>;

const withdrawalFields = {
  id: prefixedId('wd'),
  amountInCents: cents(),
  status: z.enum(WITHDRAWAL_STATUSES),
  destinationType: z.enum(['wallet', 'crypto']),
  destinationDetails: z
    .string()
    .meta({ description: 'The destination as JSON text (the spec returns it as a string).', example: '{"walletEmail":"payouts@example.com"}' }),
  requestedAt: timestamp(),
};

/** The single read: the reference or failure reason only when it applies. */
export const withdrawalResource = z
  .object({
    ...withdrawalFields,
    livemode: z.boolean(),
    notes: z.string().optional(),
    updatedAt: timestamp(),
    completedAt: timestamp().nullable(),
    cancelledAt: timestamp().optional(),
    processorTransactionId: z.string().optional().meta({ description: 'A completed wallet payout.' }),
    transactionHash: z.string().optional().meta({ description: 'A completed crypto payout.' }),
    failureReason: z.string().optional(),
  })
  .meta({ id: 'Withdrawal' });
export type WithdrawalResource = z.output<typeof withdrawalResource>;

/** The create response: exactly the fields the spec lists for it. */
export const createdWithdrawalResource = z.object(withdrawalFields).meta({ id: 'CreatedWithdrawal' });

export const withdrawalListItemResource = z
  .object({
    id: withdrawalFields.id,
    amountInCents: withdrawalFields.amountInCents,
    status: withdrawalFields.status,
    destinationType: withdrawalFields.destinationType,
    requestedAt: withdrawalFields.requestedAt,
    completedAt: timestamp().nullable(),
  })
  .meta({ id: 'WithdrawalListItem' });

export const withdrawalListResource = z.object({ items: z.array(withdrawalListItemResource), meta: pageMetaSchema });

export const cancelledWithdrawalResource = z
  .object({ id: withdrawalFields.id, status: z.enum(WITHDRAWAL_STATUSES), amountInCents: withdrawalFields.amountInCents })
  .meta({ id: 'CancelledWithdrawal' });

/** The payloads of a withdrawal's outcome (withdrawal.events.ts): a paid one names its transaction id or hash, by destination. */
const withdrawalPayload = (status: 'completed' | 'failed', extra: z.ZodRawShape) =>
  z.object({
    withdrawalId: prefixedId('wd'),
    amount: cents(),
    amountInDecimals: decimalDollars(),
    currency: z.string().meta({ example: 'USD' }),
    destinationType: z.enum(['wallet', 'crypto']),
    status: z.literal(status),
    ...extra,
    timestamp: timestamp(),
  });
export const withdrawalEventPayloads = {
  'withdrawal.paid': withdrawalPayload('completed', { processorTransactionId: z.string().nullable().optional(), transactionHash: z.string().nullable().optional() }),
  'withdrawal.failed': withdrawalPayload('failed', { failureReason: z.string().nullable() }),
};
