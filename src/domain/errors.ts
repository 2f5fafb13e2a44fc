/**
 * The failures domain code (services, queries, rules) can give a caller, by their name in the error
 * catalogue. The code does not know HTTP: src/http/errors.ts is the one map from a code to the spec's
 * status, type and message, and the error middleware answers with it.
 */
export type DomainErrorCode =
  | 'validation_failed'
  | 'service_unavailable'
  | 'live_payments_refused'
  | 'live_withdrawals_refused'
  | 'acquirer_event_unverified'
  | 'session_not_found'
  | 'session_not_payable'
  | 'refund_not_found'
  | 'refund_already_exists'
  | 'refund_session_not_completed'
  | 'insufficient_balance_for_refund'
  | 'reserve_not_found'
  | 'withdrawal_not_found'
  | 'withdrawal_not_cancellable'
  | 'withdrawal_method_not_found'
  | 'insufficient_available_balance'
  | 'balance_transaction_not_found'
  | 'webhook_url_not_https'
  | 'webhook_url_not_public'
  | 'webhook_endpoint_not_found'
  | 'webhook_endpoint_disabled'
  | 'too_many_webhook_endpoints'
  | 'event_not_found'
  | 'refund_session_disputed'
  | 'dispute_not_found'
  | 'dispute_session_refunded'
  | 'dispute_session_not_completed'
  | 'dispute_amount_invalid'
  | 'dispute_evidence_not_accepted'
  | 'dispute_evidence_past_due'
  | 'dispute_not_closable';

/** One problem with one field of the input, named by its path. */
export interface FieldError {
  path: (string | number)[];
  message: string;
}

export interface DomainErrorDetails {
  /** Values the catalogue's message names (`{ status: 'processing' }`). */
  params?: Record<string, string | number>;
  /** Every field problem, for `validation_failed` and the like. */
  errors?: FieldError[];
  /** The one field at fault: the answer lists it with the catalogue's message for the code. */
  field?: (string | number)[];
}

/** A failure the caller should see, by its catalogue code. Thrown by domain code; never a bug. */
export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: DomainErrorCode,
    readonly details: DomainErrorDetails = {},
  ) {
    super(code);
  }
}
