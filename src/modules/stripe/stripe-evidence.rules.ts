import type Stripe from 'stripe';
import type { Evidence, EvidenceField } from '../disputes/index.js';
import type { FieldError } from '../../domain/errors.js';

/**
 * The API's ten evidence fields as Stripe's dispute evidence (`disputes.update`, docs/acquirer.md has the
 * table). Seven have a text field of their own at Stripe. Three are files there: `customer_communication`,
 * `refund_policy` and `cancellation_policy` take the id of an uploaded PDF, JPEG or PNG, and the API takes
 * text. The connector sends no files: the two policies go to Stripe's text fields about them
 * (`refund_policy_disclosure`, `cancellation_policy_disclosure`: how and where the policy was shown, which
 * the policy's text answers), and the customer communication, which has no text twin, to
 * `uncategorized_text` under its own heading, after the merchant's own uncategorized text.
 */
export const STRIPE_EVIDENCE_FIELDS: Record<Exclude<EvidenceField, 'customerCommunication' | 'uncategorizedText'>, Exclude<StripeTextField, 'uncategorized_text'>> = {
  productDescription: 'product_description',
  customerName: 'customer_name',
  customerEmail: 'customer_email_address',
  shippingCarrier: 'shipping_carrier',
  shippingTrackingNumber: 'shipping_tracking_number',
  shippingDate: 'shipping_date',
  refundPolicy: 'refund_policy_disclosure',
  cancellationPolicy: 'cancellation_policy_disclosure',
};

export const COMMUNICATION_HEADING = 'Customer communication:';

/**
 * The longest text Stripe takes in each field the connector sends: `maxLength` of each evidence field of
 * `POST /v1/disputes/{dispute}` in Stripe's OpenAPI description of the pinned version (2026-08-26.dahlia,
 * stripe-mock v0.203.0's `embedded/openapi/spec3.json`; `stripe-contract.test.ts` compares them when that
 * description is on the machine). The API takes 20,000 in every field, so the five short ones, and the
 * two texts that share `uncategorized_text`, can hold what Stripe refuses. Counted in UTF-16 units, as the
 * API counts: never fewer than Stripe's characters, so what passes here passes there.
 */
export const STRIPE_EVIDENCE_LIMITS: Record<StripeTextField, number> = {
  product_description: 20_000,
  customer_name: 5_000,
  customer_email_address: 5_000,
  shipping_carrier: 5_000,
  shipping_tracking_number: 5_000,
  shipping_date: 5_000,
  refund_policy_disclosure: 20_000,
  cancellation_policy_disclosure: 20_000,
  uncategorized_text: 20_000,
};
type StripeTextField =
  | 'product_description'
  | 'customer_name'
  | 'customer_email_address'
  | 'shipping_carrier'
  | 'shipping_tracking_number'
  | 'shipping_date'
  | 'refund_policy_disclosure'
  | 'cancellation_policy_disclosure'
  | 'uncategorized_text';

/** The evidence as Stripe's fields: what the connector sends with `disputes.update`. */
export function stripeEvidence(evidence: Partial<Evidence> | Record<string, string | null>): Stripe.DisputeUpdateParams.Evidence {
  const given = evidence as Partial<Evidence>;
  const out: Record<string, string> = {};
  for (const [field, stripeField] of Object.entries(STRIPE_EVIDENCE_FIELDS) as [EvidenceField, string][]) {
    const text = given[field];
    if (text) out[stripeField] = text;
  }
  const parts = [given.uncategorizedText, given.customerCommunication ? `${COMMUNICATION_HEADING}\n${given.customerCommunication}` : null].filter(Boolean);
  if (parts.length) out.uncategorized_text = parts.join('\n\n');
  return out;
}

/** The API's fields each of Stripe's is made from. */
const SOURCES: Record<StripeTextField, EvidenceField[]> = {
  ...(Object.fromEntries(Object.entries(STRIPE_EVIDENCE_FIELDS).map(([field, stripeField]) => [stripeField, [field]])) as Record<string, EvidenceField[]>),
  uncategorized_text: ['uncategorizedText', 'customerCommunication'],
} as Record<StripeTextField, EvidenceField[]>;

/**
 * What Stripe would refuse in this evidence, as the API's field errors (one per API field at fault): a
 * field past its Stripe limit, or the two texts that share `uncategorized_text` past its limit together
 * (with the heading and the blank line between them). Empty when Stripe takes it all.
 */
export function stripeEvidenceProblems(evidence: Partial<Evidence> | Readonly<Record<string, string | null>>): FieldError[] {
  const sent = stripeEvidence(evidence) as Record<StripeTextField, string | undefined>;
  const problems: FieldError[] = [];
  for (const [stripeField, limit] of Object.entries(STRIPE_EVIDENCE_LIMITS) as [StripeTextField, number][]) {
    const length = sent[stripeField]?.length ?? 0;
    if (length <= limit) continue;
    const sources = SOURCES[stripeField].filter((field) => evidence[field]);
    // The communication goes under its heading, which counts too: its own limit is that much less.
    const own = sources[0] === 'customerCommunication' ? limit - COMMUNICATION_HEADING.length - 1 : limit;
    const message =
      sources.length > 1
        ? `${sources.join(' and ')} together must be at most ${limit} characters for a dispute at Stripe, which takes them as one field (${length} with its heading)`
        : `${sources[0]} must be at most ${own} characters for a dispute at Stripe`;
    for (const field of sources) problems.push({ path: [field], message });
  }
  return problems;
}
