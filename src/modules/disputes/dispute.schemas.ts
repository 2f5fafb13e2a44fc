import { z } from 'zod';
import { cursorQuery } from '../../domain/cursor.js';
import { cents, prefixedId, timestamp } from '../../http/envelope.js';
import { DISPUTE_REASONS, DISPUTE_STATUSES } from '../../../contracts/disputes.js';
import { EVIDENCE_FIELDS, type EvidenceField } from './dispute.entity.js';

/** The longest evidence text a field takes. */
export const MAX_EVIDENCE_LENGTH = 20_000;

const evidenceText = (field: EvidenceField) =>
  z.string().max(MAX_EVIDENCE_LENGTH, { error: `${field} must be at most ${MAX_EVIDENCE_LENGTH} characters` });

const each = <T extends z.ZodType>(schema: (field: EvidenceField) => T) =>
  Object.fromEntries(EVIDENCE_FIELDS.map((field) => [field, schema(field)])) as Record<EvidenceField, T>;

export const listDisputesQuery = z.strictObject({
  status: z.enum(DISPUTE_STATUSES, { error: `Status must be one of ${DISPUTE_STATUSES.join(', ')}` }).optional(),
  checkoutSessionId: z.string().min(1).optional().meta({ description: 'Only the dispute of this checkout session; an id that is not a UUID matches nothing.' }),
  limit: z.coerce.number().int().min(1, { error: 'Limit must be 1-100' }).max(100, { error: 'Limit must be 1-100' }).default(20),
  cursor: cursorQuery.optional(),
});

const evidenceFields = () => each((field) => evidenceText(field).nullable().optional());

/**
 * Any evidence fields (null clears one; a field left out keeps what was saved) and whether to send it
 * now. The fields may also come nested under `evidence`, as Stripe's API takes them; one given both ways
 * takes its top-level value.
 */
export const submitEvidenceInput = z
  .strictObject({
    ...evidenceFields(),
    evidence: z.strictObject(evidenceFields()).optional().meta({ description: 'The same fields, nested (Stripe’s form); a top-level field wins over its nested twin.' }),
    submit: z.boolean().default(false).meta({
      description: 'false (the default) saves a draft; true sends the evidence, after which it can no longer change.',
    }),
  })
  .transform(({ evidence, submit, ...fields }) => ({
    ...evidence,
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    submit,
  }));

export const disputeResource = z
  .object({
    id: prefixedId('dsp'),
    checkoutSessionId: z.uuid().meta({ description: 'The disputed payment.' }),
    amountInCents: cents().meta({ description: "The disputed amount: the session's `total` unless the acquirer's notice says less." }),
    feeInCents: cents().meta({ description: "The business's dispute fee, charged when a chargeback's funds are withdrawn (an inquiry's only if it escalates) and kept whatever the outcome." }),
    currency: z.literal('USD'),
    reason: z.enum(DISPUTE_REASONS),
    status: z.enum(DISPUTE_STATUSES).meta({ description: '`warning_*`: an inquiry, which moves no money; the others: a chargeback.' }),
    evidence: z.object(each(() => z.string().nullable())).meta({ id: 'DisputeEvidence' }),
    evidenceDueBy: timestamp().meta({ description: 'No submission by then loses a chargeback and closes an inquiry.' }),
    submittedAt: timestamp().nullable(),
    evidenceRefusal: z.string().nullable().meta({
      description: 'Why the acquirer refused the evidence last submitted: the dispute needs a response again, and the evidence may be corrected and submitted again before `evidenceDueBy`. Null otherwise.',
    }),
    closedAt: timestamp().nullable(),
    funding: z
      .object({ fromAvailableInCents: cents(), fromReservesInCents: cents(), owedInCents: cents().meta({ description: 'What neither covered: the available balance went that far below zero.' }) })
      .nullable()
      .meta({ id: 'DisputeFunding', description: 'How the amount and fee were withdrawn; null for an inquiry.' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    livemode: z.boolean(),
  })
  .meta({ id: 'Dispute' });
export type DisputeResource = z.output<typeof disputeResource>;

export const disputeListResource = z.object({
  items: z.array(disputeResource),
  meta: z.object({
    hasMore: z.boolean(),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
  }),
});

/** `dispute.*` all carry the dispute's state at the event (dispute.rules.ts `disputeEventPayload`), for the document's webhooks. */
const disputePayload = () =>
  z.object({
    disputeId: prefixedId('dsp'),
    checkoutSessionId: z.uuid(),
    status: z.enum(DISPUTE_STATUSES),
    reason: z.enum(DISPUTE_REASONS),
    amountInCents: cents(),
    evidenceDueBy: timestamp(),
  });
export const disputeEventPayloads = {
  'dispute.created': disputePayload(),
  'dispute.updated': disputePayload(),
  'dispute.evidence_due_soon': disputePayload(),
  'dispute.funds_withdrawn': disputePayload(),
  'dispute.funds_reinstated': disputePayload(),
  'dispute.closed': disputePayload(),
};
