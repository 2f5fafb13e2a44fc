import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/**
 * The custom search attributes an operator filters by in the Web UI (for example
 * `PaymentStatus = "processing"`). Registered on the dev server at start, by the test environments and,
 * on a real server, by deploy/temporal/register.sh.
 */
export const BusinessId = defineSearchAttributeKey('BusinessId', SearchAttributeType.KEYWORD);
export const Livemode = defineSearchAttributeKey('Livemode', SearchAttributeType.BOOL);
export const PaymentStatus = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const AmountInCents = defineSearchAttributeKey('AmountInCents', SearchAttributeType.INT);
/** A dispute's deadline for evidence: "chargebacks due in the next 48 hours" (docs/runbook.md). */
export const EvidenceDueBy = defineSearchAttributeKey('EvidenceDueBy', SearchAttributeType.DATETIME);

export const searchAttributeKeys = { BusinessId, Livemode, PaymentStatus, AmountInCents, EvidenceDueBy } as const;

/** `name=Type` pairs for `temporal server start-dev --search-attribute` and `operator search-attribute create`. */
export const searchAttributeDefinitions = ['BusinessId=Keyword', 'Livemode=Bool', 'PaymentStatus=Keyword', 'AmountInCents=Int', 'EvidenceDueBy=Datetime'];

export type SearchAttributeValues = Partial<{
  BusinessId: string;
  Livemode: boolean;
  PaymentStatus: string;
  AmountInCents: number;
  /** ISO 8601, as an outbox row stores it in JSON. */
  EvidenceDueBy: string;
}>;

export function toSearchAttributePairs(values: SearchAttributeValues): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  if (values.BusinessId !== undefined) pairs.push({ key: BusinessId, value: values.BusinessId });
  if (values.Livemode !== undefined) pairs.push({ key: Livemode, value: values.Livemode });
  if (values.PaymentStatus !== undefined) pairs.push({ key: PaymentStatus, value: values.PaymentStatus });
  if (values.AmountInCents !== undefined) pairs.push({ key: AmountInCents, value: values.AmountInCents });
  if (values.EvidenceDueBy !== undefined) pairs.push({ key: EvidenceDueBy, value: new Date(values.EvidenceDueBy) });
  return pairs;
}
