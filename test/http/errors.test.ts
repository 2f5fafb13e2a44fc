import { ApiError, errorCodes, errorEntry, type ErrorType } from '../../src/http/errors.js';

const STATUS_BY_TYPE: Record<ErrorType, number[]> = {
  validation_error: [400, 431],
  authentication_error: [401],
  permission_error: [403],
  not_found: [404],
  method_not_allowed: [405],
  idempotency_error: [409, 422],
  rate_limit_exceeded: [429],
  request_timeout: [408],
  service_unavailable: [503],
  api_error: [500],
};

describe('error catalogue', () => {
  it.each(errorCodes)('%s has the status its type calls for', (code) => {
    const { type, status } = errorEntry(code);
    expect(STATUS_BY_TYPE[type]).toContain(status);
  });

  it.each([
    ['insufficient_available_balance', 400, 'validation_error', 'Insufficient available balance'],
    ['withdrawal_method_not_found', 400, 'validation_error', 'Withdrawal method not found'],
    ['refund_session_not_completed', 400, 'validation_error', 'Can only refund completed sessions'],
    ['insufficient_balance_for_refund', 400, 'validation_error', 'Insufficient balance for refund'],
    ['webhook_url_not_https', 400, 'validation_error', 'URL must be HTTPS'],
    ['invalid_api_key', 401, 'authentication_error', 'Invalid API key'],
    ['api_key_missing', 401, 'authentication_error', 'No API key: send Authorization: Bearer <key>'],
    ['authorization_not_bearer', 401, 'authentication_error', 'Authorization must use the Bearer scheme'],
    ['withdrawal_not_found', 404, 'not_found', 'Withdrawal not found'],
    ['refund_not_found', 404, 'not_found', 'Refund not found'],
    ['webhook_endpoint_not_found', 404, 'not_found', 'Webhook endpoint not found'],
  ] as const)('%s is %i %s "%s", as the spec (or docs/decisions.md) says', (code, status, type, message) => {
    const error = new ApiError(code);
    expect([error.status, error.type, error.message]).toEqual([status, type, message]);
  });

  it('fills the spec messages that carry a value', () => {
    expect(new ApiError('withdrawal_not_cancellable', { params: { status: 'processing' } }).message).toBe(
      'Cannot cancel withdrawal in processing status',
    );
    expect(new ApiError('rate_limit_exceeded', { params: { seconds: 17 } }).message).toBe(
      'Rate limit exceeded. Please retry after 17 seconds.',
    );
  });
});
