import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';
import { CheckoutSession } from '../checkout/index.js';
import { Reserve } from '../reserves/index.js';
import type { DisputeReason, DisputeStatus } from '../../../contracts/disputes.js';


/** What a merchant may send as evidence: text fields, each at most 20,000 characters. */
export const EVIDENCE_FIELDS = [
  'productDescription',
  'customerName',
  'customerEmail',
  'customerCommunication',
  'shippingCarrier',
  'shippingTrackingNumber',
  'shippingDate',
  'refundPolicy',
  'cancellationPolicy',
  'uncategorizedText',
] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];
export type Evidence = Record<EvidenceField, string | null>;

/**
 * A customer's dispute of one payment, as the acquirer reported it. At most one per session. A chargeback
 * records how its amount and fee left the business (`available`, the reserves, what was left owing);
 * an inquiry has no funding until it escalates.
 */
export const Dispute = defineEntity({
  name: 'Dispute',
  tableName: 'disputes',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    livemode: p.boolean(),
    checkoutSessionId: () => p.manyToOne(CheckoutSession).mapToPk().fieldName('checkout_session_id'),
    amountInCents: p.bigint('number'),
    feeInCents: p.bigint('number'),
    reason: p.string().$type<DisputeReason>(),
    status: p.string().$type<DisputeStatus>(),
    evidence: p.json<Evidence>(),
    evidenceDueBy: p.datetime(),
    submittedAt: p.datetime().nullable(),
    closedAt: p.datetime().nullable(),
    /** When `dispute.evidence_due_soon` went out for the current window (cleared when an inquiry escalates). */
    remindedAt: p.datetime().nullable(),
    fromAvailableInCents: p.bigint('number').nullable(),
    fromReservesInCents: p.bigint('number').nullable(),
    owedInCents: p.bigint('number').nullable(),
    /** The real acquirer that reported it (`stripe`); null for the simulator's and an operator's. */
    acquirer: p.string().nullable(),
    /** The acquirer's own id for the dispute (Stripe's `du_…`): its events and evidence name it. */
    acquirerDisputeId: p.string().nullable(),
    /** The acquirer's status for it as last heard (Stripe's, which may run ahead of or behind ours). */
    acquirerStatus: p.string().nullable(),
    /** Why the acquirer refused the evidence last sent to it (the dispute needs a response again); null otherwise. */
    evidenceRefusal: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Dispute = InferEntity<typeof Dispute>;

/**
 * One reserve's share of a chargeback: what `consumeReserves` took from it when the funds were withdrawn,
 * and what a won chargeback gave back to it (its part of the amount, while the reserve's release date
 * was still ahead).
 */
export const DisputeReservePart = defineEntity({
  name: 'DisputeReservePart',
  tableName: 'dispute_reserve_parts',
  properties: {
    disputeId: () => p.manyToOne(Dispute).mapToPk().primary().fieldName('dispute_id'),
    reserveId: () => p.manyToOne(Reserve).mapToPk().primary().fieldName('reserve_id'),
    amountInCents: p.bigint('number'),
    returnedInCents: p.bigint('number').default(0),
  },
});
export type DisputeReservePart = InferEntity<typeof DisputeReservePart>;
