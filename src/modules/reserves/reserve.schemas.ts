import { z } from 'zod';
import { cents, prefixedId, timestamp } from '../../http/envelope.js';
import { RESERVE_STATUSES } from './reserve.entity.js';

/** The response shapes of the reserve operations; the views are typed by them. */
export const reserveResource = z
  .object({
    id: prefixedId('res'),
    paymentId: z.uuid().meta({ description: 'The checkout session whose payment is held back.' }),
    originalAmountInCents: cents(),
    reserveAmountInCents: cents(),
    reservePercentage: z.number().min(0).max(100).meta({ example: 10 }),
    status: z.enum(RESERVE_STATUSES),
    releasedAmountInCents: cents(),
    releaseAt: timestamp(),
    releasedAt: timestamp().nullable(),
    reservedAt: timestamp(),
  })
  .meta({ id: 'Reserve' });
export type ReserveResource = z.output<typeof reserveResource>;

export const reserveListResource = z.object({
  items: z.array(reserveResource),
  nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
});

export const reserveSummaryResource = z
  .object({
    totalReservedAmountInCents: cents(),
    activeReserveCount: z.number().int().min(0),
    upcomingReleaseCount: z.number().int().min(0),
    nextReleaseAt: timestamp().nullable(),
    nextReleaseAmountInCents: cents().nullable(),
  })
  .meta({ id: 'ReserveSummary' });
export type ReserveSummaryResource = z.output<typeof reserveSummaryResource>;

export const reserveConfigResource = z
  .object({
    enabled: z.boolean(),
    reservePercentage: z.number().min(0).max(100).meta({ example: 10 }),
    holdPeriodDays: z.number().min(0).meta({ example: 90 }),
    holdPeriod: z.string().meta({ description: 'ISO 8601 duration.', example: 'P90D' }),
  })
  .meta({ id: 'ReserveConfig' });
export type ReserveConfigResource = z.output<typeof reserveConfigResource>;
