import { z } from 'zod';
import { cursorQuery } from '../../domain/cursor.js';
import { dollarsToCents } from '../../domain/money.js';
import { cents, pageMetaSchema, prefixedId, timestamp } from '../../http/envelope.js';
import { email } from '../../domain/validation.js';
import { dollars } from '../../domain/type-messages.js';
import { UNKNOWN_FIELD_ADVICE } from '../../domain/unknown-fields.js';
import { queryInstant } from '../../http/validate.js';
import { SESSION_STATUSES } from './session.entity.js';
import { MAX_SESSION_SUBTOTAL_CENTS } from './totals.rules.js';
import { metadataSchema } from './metadata.schemas.js';

const PRICE_MESSAGE = 'Price must be between 0.01 and 999999.99';

const httpUrl = (max: number) =>
  z
    .string()
    .max(max, { error: `Must be at most ${max} characters` })
    .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), { error: 'Must be an http or https URL' })
    .meta({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' });

// A price that is no number is told so (domain/type-messages.ts); the spec's message is for one out of range.
const price = dollars()
  .min(0.01, { error: PRICE_MESSAGE })
  .max(999_999.99, { error: PRICE_MESSAGE })
  .meta({ multipleOf: 0.01, description: 'Dollars per unit, at most two decimals.', example: 24.5 })
  .transform((dollars, ctx) => {
    const cents = dollarsToCents(dollars);
    if (cents === null) {
      ctx.addIssue({ code: 'custom', message: 'Price must have at most 2 decimal places' });
      return z.NEVER;
    }
    return cents;
  });

export const sessionItemInput = z.strictObject({
  name: z.string().min(1, { error: 'Name must be 1-100 characters' }).max(100, { error: 'Name must be 1-100 characters' }),
  description: z.string().max(256, { error: 'Description must be at most 256 characters' }).nullish(),
  price,
  quantity: z
    .number()
    .int()
    .min(1, { error: 'Quantity must be between 1 and 1000000' })
    .max(1_000_000, { error: 'Quantity must be between 1 and 1000000' }),
  imageUrl: httpUrl(256).nullish(),
});

/**
 * The service charges in US dollars only (the spec: "Always USD"). `currency` may say so, for a client
 * written against an API that asks for one; any other currency is refused, not charged in dollars.
 */
export const SESSION_CURRENCY_MESSAGE = 'Currency must be USD: this service charges in US dollars only';

/** What a session's amount is, said to a body that gives one (the spec's overview shows `amountInCents`). */
const SESSION_AMOUNT_ADVICE = "A session's amount is its items' prices times their quantities, plus the fee: send items";

export const createSessionInput = z
  .strictObject({
    description: z
      .string({ error: 'Description is required' })
      .min(1, { error: 'Description must be 1-256 characters' })
      .max(256, { error: 'Description must be 1-256 characters' }),
    customer: z.strictObject({ email: email() }, { error: 'Customer is required' }),
    currency: z.literal('USD', { error: SESSION_CURRENCY_MESSAGE }).optional().meta({ description: 'Always USD; may be left out.' }),
    askShipping: z.boolean().default(false),
    urls: z
      .strictObject({ success: httpUrl(256).nullish(), cancel: httpUrl(256).nullish(), failure: httpUrl(256).nullish() })
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
  })
  .register(UNKNOWN_FIELD_ADVICE, { amount: SESSION_AMOUNT_ADVICE, amountInCents: SESSION_AMOUNT_ADVICE, total: SESSION_AMOUNT_ADVICE });
export type CreateSessionInput = z.output<typeof createSessionInput>;

const isoDate = queryInstant();

export const listSessionsQuery = z.strictObject({
  status: z.enum([...SESSION_STATUSES, 'all']).default('all'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  page: z.coerce.number().int().min(1).default(1),
  cursor: cursorQuery.optional(),
  search: z.string().min(1).max(256).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
  startDate: isoDate.optional(),
  endDate: isoDate.optional(),
});
export type ListSessionsQuery = z.output<typeof listSessionsQuery>;

/** Session metadata as returned: always an object. */
const metadataOutput = z.record(z.string(), z.union([z.string(), z.number().int(), z.boolean()])).meta({ example: { orderId: 'A-1001' } });

export const sessionItemResource = z
  .object({
    id: prefixedId('item'),
    sessionId: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    price: cents().meta({ description: 'Cents per unit.' }),
    quantity: z.number().int().min(1),
    imageUrl: z.string().nullable(),
    subtotal: cents().meta({ description: 'Cents; price times quantity.' }),
  })
  .meta({ id: 'SessionItem' });

export const sessionResource = z
  .object({
    id: z.uuid(),
    businessId: prefixedId('biz'),
    userId: prefixedId('key').meta({ description: 'The API key that created the session.' }),
    status: z.enum(SESSION_STATUSES),
    currency: z.literal('USD'),
    subtotal: cents().meta({ description: 'Cents; the items.' }),
    fee: cents().meta({ description: "Cents; the business's processing fee." }),
    total: cents().meta({ description: 'Cents; subtotal plus fee.' }),
    description: z.string(),
    customerEmail: z.string(),
    askShipping: z.boolean(),
    successUrl: z.string().nullable(),
    cancelUrl: z.string().nullable(),
    failureUrl: z.string().nullable(),
    checkoutUrl: z.string().meta({ description: 'The hosted payment page: `{CHECKOUT_BASE_URL}/checkout/<id>`.' }),
    metadata: metadataOutput,
    livemode: z.boolean(),
    items: z.array(sessionItemResource),
    expiresAt: timestamp().meta({ description: 'A session still pending then becomes cancelled.' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    completedAt: timestamp().nullable(),
    disputeId: prefixedId('dsp').nullable().meta({ description: "The payment's dispute (`GET /disputes/{id}`), or null when it has none." }),
  })
  .meta({ id: 'CheckoutSession' });
export type SessionResource = z.output<typeof sessionResource>;

/** The list form; `amountInCents` repeats `total` (both occur in the spec's examples). */
export const sessionListItemResource = z
  .object({
    id: z.uuid(),
    total: cents(),
    amountInCents: cents(),
    currency: z.literal('USD'),
    status: z.enum(SESSION_STATUSES),
    checkoutUrl: z.string(),
    customerEmail: z.string(),
    metadata: metadataOutput,
    createdAt: timestamp(),
  })
  .meta({ id: 'CheckoutSessionListItem' });
export type SessionListItemResource = z.output<typeof sessionListItemResource>;

export const sessionListResource = z.object({
  items: z.array(sessionListItemResource),
  meta: pageMetaSchema,
  nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
});
