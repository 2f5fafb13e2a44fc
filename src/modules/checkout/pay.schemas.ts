import { z } from 'zod';
import { cents, decimalDollars, timestamp } from '../../http/envelope.js';
import { email } from '../../domain/validation.js';
import { SESSION_STATUSES } from './session.entity.js';
import { normaliseCardNumber } from '../processor/index.js';
import { ISO_COUNTRY_CODES } from './countries.rules.js';

/** A whole number given as a JSON number or as digits in a string (form fields are strings). */
/**
 * A whole number as a card form types it: a JSON number or a string of digits. Anything else is told its
 * type ("Expiry month must be a whole number, such as 12"), not the range a number must be in.
 */
const wholeNumber = (label: string, example: number) => {
  const wrongType = `${label} must be a whole number, such as ${example}`;
  return z
    .union([z.number(), z.string().trim().regex(/^\d+$/, { error: wrongType }).transform(Number)], { error: wrongType })
    .pipe(z.number().int({ error: wrongType }));
};

const text = (label: string, max: number) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, { error: `${label} is required` })
    .max(max, { error: `${label} must be at most ${max} characters` });

export const cardInput = z
  .strictObject(
    {
      number: z
        .string({ error: 'Card number is required' })
        .transform(normaliseCardNumber)
        .pipe(z.string().regex(/^\d{12,19}$/, { error: 'Card number must be 12 to 19 digits' }))
        .meta({ pattern: '^[\\s-]*(?:\\d[\\s-]*){12,19}$', description: '12 to 19 digits; spaces and dashes are ignored.', example: '4242 4242 4242 4242' }),
      expMonth: wholeNumber('Expiry month', 12)
        .pipe(z.number().min(1, { error: 'Expiry month must be 1-12' }).max(12, { error: 'Expiry month must be 1-12' }))
        .meta({ override: { anyOf: [{ type: 'integer', minimum: 1, maximum: 12 }, { type: 'string', pattern: '^\\s*0*(?:[1-9]|1[0-2])\\s*$' }] }, example: 12 }),
      // Two-digit years (as typed in MM/YY) mean this century.
      expYear: wholeNumber('Expiry year', 2030)
        .transform((year) => (year < 100 ? 2000 + year : year))
        .pipe(z.number().min(2000, { error: 'Expiry year must be a year such as 2030' }).max(2100, { error: 'Expiry year must be a year such as 2030' }))
        .meta({
          description: 'Four digits, or two (this century); the card must not have expired.',
          override: {
            anyOf: [
              { type: 'integer', minimum: 0, maximum: 99 },
              { type: 'integer', minimum: 2000, maximum: 2100 },
              { type: 'string', pattern: '^\\s*0*(?:\\d{1,2}|20\\d\\d|2100)\\s*$' },
            ],
          },
          example: 2030,
        }),
      cvc: z.string({ error: 'CVC is required' }).trim().regex(/^\d{3,4}$/, { error: 'CVC must be 3 or 4 digits' }),
    },
    { error: 'Card is required' },
  )
  .superRefine((card, ctx) => {
    const now = new Date();
    const expired = card.expYear < now.getUTCFullYear() || (card.expYear === now.getUTCFullYear() && card.expMonth < now.getUTCMonth() + 1);
    if (expired) ctx.addIssue({ code: 'custom', path: ['expYear'], message: 'Card has expired' });
  });

export const shippingInput = z.strictObject(
  {
    addressLine1: text('Address line 1', 200),
    addressLine2: z.string().trim().max(200, { error: 'Address line 2 must be at most 200 characters' }).nullish(),
    city: text('City', 100),
    state: text('State', 100),
    postalCode: text('Postal code', 20),
    country: z
      .string({ error: 'Country is required' })
      .trim()
      .toUpperCase()
      .refine((code) => ISO_COUNTRY_CODES.has(code), { error: 'Country must be an ISO 3166-1 alpha-2 code' })
      .meta({ enum: [...ISO_COUNTRY_CODES], description: 'ISO 3166-1 alpha-2 (upper case; lower case is accepted).' }),
  },
  { error: 'Shipping address must be an object' },
);

/** `POST /api/checkout/:id/pay`. Whether shipping is required depends on the session, checked after. */
export const payInput = z.strictObject({
  card: cardInput,
  name: text('Cardholder name', 100),
  email: email().optional(),
  shipping: shippingInput.nullish(),
});
export type PayInput = z.output<typeof payInput>;

/**
 * `POST /api/checkout/:id/pay` for a session whose card is collected in the browser by Stripe.js (live mode
 * with ACQUIRER=stripe): the customer's details alone. A `card` is refused as an unknown field: no card
 * number may reach this service in that mode (docs/production.md, PCI DSS).
 */
export const payInBrowserInput = payInput.omit({ card: true });
export type PayInBrowserInput = z.output<typeof payInBrowserInput>;

/**
 * The document's request body: both forms in one strict object, `card` required or refused as the
 * session's mode says (the route parses with `payInput` or `payInBrowserInput`). One object rather than
 * a union, so that the document states every field it takes and a field it does not is refused by name.
 */
export const payRequestBody = payInput.extend({
  card: cardInput.optional().meta({ description: 'Required in test mode and on simulated live pages; refused (an unknown field) where the card is collected by Stripe.js.' }),
});

/** The pay call's answer: the outcome so far, and where the customer goes next (null: stay on the page). */
export const payAnswerResource = z
  .object({
    sessionId: z.uuid(),
    status: z.enum(SESSION_STATUSES).meta({ description: '`completed`, `failed`, or `processing` while the outcome is not known yet.' }),
    redirectUrl: z.string().nullable(),
    confirmation: z
      .object({ clientSecret: z.string(), returnUrl: z.string() })
      .optional()
      .meta({
        description:
          'Only when the card is collected in the browser (live mode with Stripe): the PaymentIntent\'s client secret, which the page confirms with Stripe.js, and the page to come back to after 3-D Secure.',
      }),
  })
  .meta({ id: 'PayAnswer' });

/** The payloads of the payment's events (payment.lifecycle.ts writes them), for the document's webhooks. */
const shipping = z.object({ addressLine1: z.string(), city: z.string(), state: z.string(), postalCode: z.string(), country: z.string() }).strict();
export const checkoutEventPayloads = {
  'checkout.succeeded': z.object({
    sessionId: z.uuid(),
    amount: cents(),
    amountInDecimals: decimalDollars(),
    currency: z.string().meta({ example: 'USD' }),
    customerEmail: z.string(),
    customerName: z.string().nullable(),
    timestamp: timestamp(),
    shipping: shipping.nullable(),
  }),
  'checkout.failed': z.object({
    sessionId: z.uuid(),
    amount: cents(),
    currency: z.string().meta({ example: 'USD' }),
    customerEmail: z.string(),
    failureCode: z.string(),
    failureMessage: z.string(),
    timestamp: timestamp(),
  }),
};
