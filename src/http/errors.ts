import { DomainError, type DomainErrorCode, type FieldError } from '../domain/errors.js';
import { isTypeMessage } from '../domain/type-messages.js';


/**
 * The one error path. Every failure a client can see is an `ApiError` naming an entry of this catalogue;
 * the error middleware turns it into the spec's envelope. Status, type and message come from here only.
 * Domain code throws a `DomainError` with the same code, which knows no HTTP; `toApiError` maps it here.
 */
export type ErrorType =
  | 'validation_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found'
  | 'method_not_allowed'
  | 'idempotency_error'
  | 'rate_limit_exceeded'
  | 'request_timeout'
  | 'service_unavailable'
  | 'api_error';

interface CatalogueEntry {
  type: ErrorType;
  status: number;
  message: string | ((params: Record<string, string | number>) => string);
}

const catalogue = {
  validation_failed: { type: 'validation_error', status: 400, message: 'Validation failed' },
  invalid_json: { type: 'validation_error', status: 400, message: 'Request body must be valid JSON' },
  unsupported_media_type: { type: 'validation_error', status: 400, message: 'Content-Type must be application/json' },
  unsupported_content_encoding: { type: 'validation_error', status: 400, message: 'Content-Encoding must be identity' },
  body_too_large: { type: 'validation_error', status: 400, message: 'Request body must not exceed 1 MB' },
  body_too_deep: {
    type: 'validation_error',
    status: 400,
    message: ({ max }) => `Request body must not nest objects and arrays more than ${max} levels deep`,
  },
  insufficient_available_balance: { type: 'validation_error', status: 400, message: 'Insufficient available balance' },
  withdrawal_method_not_found: { type: 'validation_error', status: 400, message: 'Withdrawal method not found' },
  refund_session_not_completed: { type: 'validation_error', status: 400, message: 'Can only refund completed sessions' },
  refund_already_exists: { type: 'validation_error', status: 400, message: 'Refund already exists for this session' },
  insufficient_balance_for_refund: { type: 'validation_error', status: 400, message: 'Insufficient balance for refund' },
  refund_session_disputed: {
    type: 'validation_error',
    status: 400,
    message: ({ status }) => `Cannot refund a checkout session whose dispute is ${status}`,
  },
  dispute_evidence_not_accepted: {
    type: 'validation_error',
    status: 400,
    message: ({ status }) => `Cannot submit evidence for a dispute in ${status} status`,
  },
  dispute_evidence_past_due: {
    type: 'validation_error',
    status: 400,
    message: ({ evidenceDueBy }) => `Evidence was due by ${evidenceDueBy}`,
  },
  dispute_not_closable: { type: 'validation_error', status: 400, message: ({ status }) => `Cannot close a dispute in ${status} status` },
  // The acquirer's notices (the admin CLI's `dispute open`), never an API request.
  dispute_session_refunded: { type: 'validation_error', status: 400, message: 'A refunded session cannot be disputed: the acquirer reverses the notice' },
  dispute_session_not_completed: {
    type: 'validation_error',
    status: 400,
    message: ({ status }) => `Cannot dispute a checkout session in ${status} status`,
  },
  dispute_amount_invalid: {
    type: 'validation_error',
    status: 400,
    message: ({ total }) => `Dispute amount must be between 0.01 and ${total}`,
  },
  withdrawal_not_cancellable: {
    type: 'validation_error',
    status: 400,
    message: ({ status }) => `Cannot cancel withdrawal in ${status} status`,
  },
  session_not_payable: {
    type: 'validation_error',
    status: 400,
    message: ({ status }) => `Cannot pay a checkout session in ${status} status`,
  },
  webhook_url_not_https: { type: 'validation_error', status: 400, message: 'URL must be HTTPS' },
  webhook_url_not_public: {
    type: 'validation_error',
    status: 400,
    message: 'URL must not resolve to a loopback, private, link-local or unique-local address',
  },
  webhook_endpoint_disabled: { type: 'validation_error', status: 400, message: 'Webhook endpoint is disabled' },
  too_many_webhook_endpoints: {
    type: 'validation_error',
    status: 400,
    message: ({ max }) => `Too many webhook endpoints (max ${max})`,
  },
  // A request that sends no key, or not as a Bearer token, is told how to send one; "Invalid API key"
  // (the spec's words) is for a key that was sent and is wrong. None says whether a key exists.
  api_key_missing: { type: 'authentication_error', status: 401, message: 'No API key: send Authorization: Bearer <key>' },
  authorization_not_bearer: { type: 'authentication_error', status: 401, message: 'Authorization must use the Bearer scheme' },
  invalid_api_key: { type: 'authentication_error', status: 401, message: 'Invalid API key' },
  read_only_key: { type: 'permission_error', status: 403, message: 'This API key is read-only' },
  business_not_approved: {
    type: 'permission_error',
    status: 403,
    message: 'Live API keys work only once the business is approved',
  },
  https_required: { type: 'permission_error', status: 403, message: 'HTTPS is required' },
  live_payments_refused: {
    type: 'permission_error',
    status: 403,
    message: 'Live payments are not enabled on this server: no acquirer is configured',
  },
  live_withdrawals_refused: {
    type: 'permission_error',
    status: 403,
    message: 'Live withdrawals are not enabled on this server: no withdrawal rail is configured',
  },
  acquirer_event_unverified: { type: 'validation_error', status: 400, message: 'The event does not verify against its Stripe-Signature header' },
  route_not_found: { type: 'not_found', status: 404, message: 'Resource not found' },
  session_not_found: { type: 'not_found', status: 404, message: 'Checkout session not found' },
  withdrawal_not_found: { type: 'not_found', status: 404, message: 'Withdrawal not found' },
  refund_not_found: { type: 'not_found', status: 404, message: 'Refund not found' },
  reserve_not_found: { type: 'not_found', status: 404, message: 'Reserve not found' },
  balance_transaction_not_found: { type: 'not_found', status: 404, message: 'Balance transaction not found' },
  dispute_not_found: { type: 'not_found', status: 404, message: 'Dispute not found' },
  webhook_endpoint_not_found: { type: 'not_found', status: 404, message: 'Webhook endpoint not found' },
  event_not_found: { type: 'not_found', status: 404, message: 'Event or delivery not found' },
  method_not_allowed: { type: 'method_not_allowed', status: 405, message: 'Method not allowed' },
  // 408 and its own type, not validation_error: nothing in the request is wrong, and sending it again
  // (promptly) succeeds; docs/decisions.md, "A request's deadline".
  request_timeout: { type: 'request_timeout', status: 408, message: 'The request was not received in time; please send it again' },
  malformed_request: { type: 'validation_error', status: 400, message: 'Malformed HTTP request' },
  headers_too_large: { type: 'validation_error', status: 431, message: 'Request headers are too large' },
  // 422, as the IETF Idempotency-Key draft says (the spec names no status for a reused key).
  idempotency_key_reused: {
    type: 'idempotency_error',
    status: 422,
    message: 'This Idempotency-Key was used with a different request',
  },
  idempotency_key_in_progress: {
    type: 'idempotency_error',
    status: 409,
    message: 'A request with this Idempotency-Key is in progress',
  },
  rate_limit_exceeded: {
    type: 'rate_limit_exceeded',
    status: 429,
    message: ({ seconds }) => `Rate limit exceeded. Please retry after ${seconds} seconds.`,
  },
  service_unavailable: {
    type: 'service_unavailable',
    status: 503,
    message: 'The service is temporarily unavailable; please retry',
  },
  internal: { type: 'api_error', status: 500, message: 'An unexpected error occurred' },
} satisfies Record<string, CatalogueEntry> & Record<DomainErrorCode, CatalogueEntry>; // every domain code has its entry

export type ErrorCode = keyof typeof catalogue;

/**
 * Messages the spec names for particular rules. When the first problem in a request is one of these, or
 * a field of the wrong type (domain/type-messages.ts: "Price must be a number of dollars, such as
 * 24.50"), the envelope's top-level message is that message (the spec's error table); otherwise it is
 * the generic "Validation failed". `errors` always lists every problem.
 */
export const SPEC_FIELD_MESSAGES = new Set([
  'Price must be between 0.01 and 999999.99',
  'At least one item is required',
  'Too many metadata fields (max 50)',
  'URL must be HTTPS',
]);

/**
 * A 503 always says when to come back: a second, as the proxy's own 503 does. It is the one answer a
 * client may retry at once, and `Retry-After` is what tells a client (and a test) it may.
 */
const SERVICE_UNAVAILABLE_RETRY_AFTER = 1;

export class ApiError extends Error {
  readonly type: ErrorType;
  readonly status: number;
  readonly details: { params?: Record<string, string | number>; errors?: FieldError[]; retryAfter?: number };

  constructor(
    readonly code: ErrorCode,
    details: { params?: Record<string, string | number>; errors?: FieldError[]; retryAfter?: number } = {},
  ) {
    const entry: CatalogueEntry = catalogue[code];
    const first = code === 'validation_failed' ? details.errors?.[0]?.message : undefined;
    const headline = first !== undefined && (SPEC_FIELD_MESSAGES.has(first) || isTypeMessage(first)) ? first : undefined;
    super(headline ?? (typeof entry.message === 'function' ? entry.message(details.params ?? {}) : entry.message));
    this.type = entry.type;
    this.status = entry.status;
    // A 503, and a 409 for a key in progress, always say when to come back (the 409's own figure is
    // what the claim has left, given by the idempotency middleware; a second is the fallback).
    this.details = code === 'service_unavailable' || code === 'idempotency_key_in_progress' ? { retryAfter: SERVICE_UNAVAILABLE_RETRY_AFTER, ...details } : details;
  }
}

/** The answer to a failure a caller should see: an `ApiError`, or a domain error by its catalogue entry. */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (!(err instanceof DomainError)) return undefined;
  const { field, ...details } = err.details;
  const answer = new ApiError(err.code, details);
  return field ? new ApiError(err.code, { ...details, errors: [{ path: field, message: answer.message }] }) : answer;
}

export function errorEntry(code: ErrorCode): { type: ErrorType; status: number } {
  const { type, status } = catalogue[code];
  return { type, status };
}

export const errorCodes = Object.keys(catalogue) as ErrorCode[];
