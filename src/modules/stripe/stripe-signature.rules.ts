/**
 * Why a delivery at the acquirer endpoint did not verify, as a reason an operator can act on: a wrong
 * `STRIPE_WEBHOOK_SECRET` shows as every delivery `signature_mismatch`, a skewed clock as
 * `timestamp_too_old` or `timestamp_in_future`, a proxy that rewrites bodies as `signature_mismatch` too.
 * Counted by reason (`acquirer_events_unverified_total`), never recorded.
 */
export type UnverifiedReason = 'no_signature' | 'malformed_signature' | 'signature_mismatch' | 'timestamp_too_old' | 'timestamp_in_future' | 'body_not_json';

/** How far an event's signed timestamp may be from now, either way: Stripe's library default, and the spec's own for receivers. */
export const TOLERANCE_SECONDS = 300;

/**
 * The timestamp a `Stripe-Signature` header signs, read as the `stripe` library reads it (the last `t=`
 * wins), so that the time checked is the one the verified signature covers. Null when there is none.
 */
export function signedTimestampOf(header: string): number | null {
  let timestamp: number | null = null;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') timestamp = Number.parseInt(value ?? '', 10);
  }
  return timestamp !== null && Number.isFinite(timestamp) ? timestamp : null;
}

/** What the header itself says is wrong before any signature is computed: none, or one with no time or no `v1`. */
export function headerProblemOf(header: string): UnverifiedReason | null {
  if (!header) return 'no_signature';
  if (signedTimestampOf(header) === null || !header.split(',').some((item) => item.startsWith('v1='))) return 'malformed_signature';
  return null;
}

/**
 * The signed time against now, both ways. The `stripe` library refuses only an old timestamp (its age past
 * the tolerance); one ahead passed, so a delivery signed with a time a day ahead (a sender's clock, or one
 * made to outlive its replay window) was taken. Such a time is refused as an old one is.
 */
export function timestampProblemOf(signedAt: number, nowSeconds: number, tolerance = TOLERANCE_SECONDS): UnverifiedReason | null {
  if (nowSeconds - signedAt > tolerance) return 'timestamp_too_old';
  if (signedAt - nowSeconds > tolerance) return 'timestamp_in_future';
  return null;
}
