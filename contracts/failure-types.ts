/**
 * Failure types that cross the activity → workflow boundary. A processor's permanent refusal is raised
 * by the activity as a non-retryable `ApplicationFailure` of one of these types; the workflow turns it
 * into a `failed` record. Plain values with no imports, so activities may share them.
 */
export const PAYOUT_DECLINED = 'PayoutDeclined';
export const REFUND_DECLINED = 'RefundDeclined';
/** A real acquirer refused what a dispute's workflow sent it (evidence to a dispute it no longer takes it for). */
export const ACQUIRER_REFUSED = 'AcquirerRefused';
