import { z } from 'zod';
import { dollarsToCents } from '../../domain/money.js';
import { email } from '../../http/validate.js';
import { SESSION_STATUSES } from './session.entity.js';
import { MAX_SESSION_SUBTOTAL_CENTS } from './totals.js';
import { metadataSchema } from './metadata.schema.js';

const PRICE_MESSAGE = 'Price must be between 0.01 and 999999.99';

const httpUrl = (max: number) =>
  z
    .string()
    .max(max, { error: `Must be at most ${max} characters` })
    .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), { error: 'Must be an http or https URL' });

const price = z
  .number({ error: PRICE_MESSAGE })
  .min(0.01, { error: PRICE_MESSAGE })
  .max(999_999.99, { error: PRICE_MESSAGE })
  .transform((dollars, ctx) => {
    const cents = dollarsToCents(dollars);
    if (cents === null) {
      ctx.addIssue({ code: 'custom', message: 'Price must have at most 2 decimal places' });
      return z.NEVER;
    }
    return cents;
  });

export const sessionItemInput = z.object({
  name: z.string().min(1, { error: 'Name must be 1-100 characters' }).max(100, { error: 'Name must be 1-100 characters' }),
  description: z.string().max(256, { error: 'Description must be at most 256 characters' }).nullish(),
  price,
  quantity: z
    .number()
    .int({ error: 'Quantity must be an integer' })
    .min(1, { error: 'Quantity must be between 1 and 1000000' })
    .max(1_000_000, { error: 'Quantity must be between 1 and 1000000' }),
  imageUrl: httpUrl(256).nullish(),
});

export const createSessionInput = z
  .object({
    description: z
      .string({ error: 'Description is required' })
      .min(1, { error: 'Description must be 1-256 characters' })
      .max(256, { error: 'Description must be 1-256 characters' }),
    customer: z.object({ email: email() }, { error: 'Customer is required' }),
    askShipping: z.boolean().default(false),
    urls: z
      .object({ success: httpUrl(256).nullish(), cancel: httpUrl(256).nullish(), failure: httpUrl(256).nullish() })
      .nullish(),
    items: z
      .array(sessionItemInput, { error: 'At least one item is required' })
      .min(1, { error: 'At least one item is required' })
      .max(100, { error: 'At most 100 items are allowed' }),
    metadata: metadataSchema.optional(),
  })
  .superRefine((body, ctx) => {
    const subtotal = body.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
    if (subtotal > MAX_SESSION_SUBTOTAL_CENTS) {
      ctx.addIssue({ code: 'custom', path: ['items'], message: 'Session subtotal must not exceed 999999999.99' });
    }
  });
export type CreateSessionInput = z.output<typeof createSessionInput>;

const isoDate = z.iso.datetime({ offset: true, error: 'Must be an ISO 8601 date-time' }).or(z.iso.date());

export const listSessionsQuery = z.object({
  status: z.enum([...SESSION_STATUSES, 'all']).default('all'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  page: z.coerce.number().int().min(1).default(1),
  cursor: z.string().min(1).optional(),
  search: z.string().min(1).max(256).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
  startDate: isoDate.optional(),
  endDate: isoDate.optional(),
});
export type ListSessionsQuery = z.output<typeof listSessionsQuery>;
