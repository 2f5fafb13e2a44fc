import { z } from 'zod';

/**
 * What the acquirer endpoint reads of a verified Stripe event, checked before anything is written: a
 * signature proves who sent it, not that every field has the shape Stripe documents, and a field of another
 * shape (or text PostgreSQL cannot store) must be a 400, never a failure in the database. Everything else
 * in the event is kept as it came.
 */
const id = z.string().min(1).max(255);
/**
 * A Unix time in seconds that a four-digit year can hold (up to 9999-12-31T23:59:59Z): further out, a
 * date's ISO form takes a six-digit year ("+036812-…"), which PostgreSQL refused when the dispute was
 * written (500), and which is no RFC 3339 date-time for the dispute's events and the API document.
 */
const unixTime = z.number().int().min(0).max(253_402_300_799);

export const stripeEventShape = z.looseObject({
  id,
  type: z.string().min(1).max(255),
  created: unixTime,
  livemode: z.boolean(),
  data: z.looseObject({ object: z.looseObject({ id: id.optional() }) }),
});

export const stripeDisputeShape = z.looseObject({
  id,
  status: z.string().min(1).max(64),
  amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  reason: z.string().max(64),
  payment_intent: z.union([id, z.looseObject({ id }), z.null()]).optional(),
  evidence_details: z.looseObject({ due_by: unixTime.nullable().optional() }).nullable().optional(),
});

export const stripeRefundShape = z.looseObject({
  id,
  status: z.string().min(1).max(64).nullable(),
  failure_reason: z.string().max(255).nullable().optional(),
  metadata: z.looseObject({ refund_id: z.string().max(255).optional() }).nullable().optional(),
});

export const stripeIntentShape = z.looseObject({
  id,
  status: z.string().min(1).max(64),
});
