import type { Dispute } from './dispute.entity.js';
import { mergeEvidence } from './dispute.rules.js';
import type { DisputeResource } from './dispute.schemas.js';

export function disputeView(d: Dispute): DisputeResource {
  return {
    id: d.id,
    checkoutSessionId: d.checkoutSessionId,
    amountInCents: d.amountInCents,
    feeInCents: d.feeInCents,
    currency: 'USD',
    reason: d.reason,
    status: d.status,
    evidence: mergeEvidence(d.evidence, {}),
    evidenceDueBy: d.evidenceDueBy.toISOString(),
    submittedAt: d.submittedAt?.toISOString() ?? null,
    evidenceRefusal: d.evidenceRefusal ?? null,
    closedAt: d.closedAt?.toISOString() ?? null,
    funding: fundingOf(d),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    livemode: d.livemode,
  };
}

/** An inquiry has none; a chargeback's three parts are all set (the database holds them together). */
function fundingOf(d: Dispute): DisputeResource['funding'] {
  const [fromAvailableInCents, fromReservesInCents, owedInCents] = [d.fromAvailableInCents, d.fromReservesInCents, d.owedInCents];
  if (fromAvailableInCents == null || fromReservesInCents == null || owedInCents == null) return null;
  return { fromAvailableInCents, fromReservesInCents, owedInCents };
}
