import type Stripe from 'stripe';
import type { Evidence, EvidenceField } from '../disputes/dispute.entity.js';

/**
 * The API's ten evidence fields as Stripe's dispute evidence (`disputes.update`, docs/acquirer.md has the
 * table). Seven have a text field of their own at Stripe. Three are files there: `customer_communication`,
 * `refund_policy` and `cancellation_policy` take the id of an uploaded PDF, JPEG or PNG, and the API takes
 * text. The connector sends no files: the two policies go to Stripe's text fields about them
 * (`refund_policy_disclosure`, `cancellation_policy_disclosure`: how and where the policy was shown, which
 * the policy's text answers), and the customer communication, which has no text twin, to
 * `uncategorized_text` under its own heading, after the merchant's own uncategorized text.
 */
export const STRIPE_EVIDENCE_FIELDS: Record<Exclude<EvidenceField, 'customerCommunication' | 'uncategorizedText'>, keyof Stripe.DisputeUpdateParams.Evidence> = {
  productDescription: 'product_description',
  customerName: 'customer_name',
  customerEmail: 'customer_email_address',
  shippingCarrier: 'shipping_carrier',
  shippingTrackingNumber: 'shipping_tracking_number',
  shippingDate: 'shipping_date',
  refundPolicy: 'refund_policy_disclosure',
  cancellationPolicy: 'cancellation_policy_disclosure',
};

/** Stripe's limit on all of a dispute's text evidence together. */
export const STRIPE_EVIDENCE_TEXT_LIMIT = 150_000;
export const COMMUNICATION_HEADING = 'Customer communication:';
export const TRUNCATED_NOTE = '\n[Truncated: the evidence exceeded Stripe\'s 150,000-character limit]';

/**
 * The fields cut first when the evidence is over Stripe's limit: the free text, then the policies and the
 * product's description. The short, factual ones (names, the e-mail, shipping) are never this long.
 */
const CUT_FIRST = ['uncategorized_text', 'cancellation_policy_disclosure', 'refund_policy_disclosure', 'product_description'];

/**
 * The evidence as Stripe's fields. The API allows ten fields of 20,000 characters; Stripe takes 150,000 in
 * all, so when the total is over, the longest, least structured fields are cut to fit (`CUT_FIRST`), each
 * cut one saying so, rather than the whole submission refused after the merchant was told it was sent.
 */
export function stripeEvidence(evidence: Partial<Evidence> | Record<string, string | null>): Stripe.DisputeUpdateParams.Evidence {
  const given = evidence as Partial<Evidence>;
  const out: Record<string, string> = {};
  for (const [field, stripeField] of Object.entries(STRIPE_EVIDENCE_FIELDS) as [EvidenceField, string][]) {
    const text = given[field];
    if (text) out[stripeField] = text;
  }
  const parts = [given.uncategorizedText, given.customerCommunication ? `${COMMUNICATION_HEADING}\n${given.customerCommunication}` : null].filter(Boolean);
  if (parts.length) out.uncategorized_text = parts.join('\n\n');
  let over = Object.values(out).reduce((sum, value) => sum + value.length, 0) - STRIPE_EVIDENCE_TEXT_LIMIT;
  for (const field of CUT_FIRST) {
    if (over <= 0) break;
    const text = out[field];
    if (!text) continue;
    const keep = Math.max(0, text.length - over - TRUNCATED_NOTE.length);
    out[field] = text.slice(0, keep) + TRUNCATED_NOTE;
    over -= text.length - out[field].length;
  }
  return out;
}
