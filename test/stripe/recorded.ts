/**
 * Stripe's answers in the states stripe-mock cannot reach (it is stateless: every intent it returns is
 * `requires_payment_method`, every refund `succeeded`, every dispute an open inquiry). Each is the mock's
 * own fixture for the request, with the fields Stripe's API reference gives for that state (`status`,
 * `last_payment_error`, `failure_reason`, an error's `type`, `code` and `decline_code`), so the shape is
 * Stripe's and only the state is recorded. No live call to Stripe is made from this repository.
 */
import type { Recorded } from '../support/stripe-mock.js';

/** The id in a path such as `/v1/payment_intents/pi_x/confirm`. */
const idIn = (path: string) => path.split('/')[3];

/** A PaymentIntent in `status`, its id and amount the request's (`/v1/payment_intents/:id…`). */
export const intentIn =
  (status: string, extra: Record<string, unknown> = {}): Recorded =>
  ({ path, params, mock }) => ({
    status: 200,
    body: {
      ...mock,
      id: idIn(path) ?? mock.id,
      ...(params.get('amount') ? { amount: Number(params.get('amount')) } : {}),
      status,
      last_payment_error: null,
      canceled_at: status === 'canceled' ? mock.canceled_at : null,
      latest_charge: status === 'succeeded' ? 'ch_3recorded' : null,
      amount_received: status === 'succeeded' ? (params.get('amount') ? Number(params.get('amount')) : mock.amount) : 0,
      ...extra,
    },
  });

/** A PaymentIntent opened and never tried, as retrieved: its secret names it, as Stripe's always does. */
export const intentUntried: Recorded = (request) => {
  const { status, body } = intentIn('requires_payment_method')(request) as { status: number; body: Record<string, unknown> };
  return { status, body: { ...body, client_secret: `${idIn(request.path)}_secret_recorded` } };
};

/**
 * A PaymentIntent as created: the mock's fixture, whose `client_secret` names another intent than its `id`
 * (both fixed strings, the id then randomised); Stripe's secret always begins with its intent's id, which is
 * how Stripe.js knows the intent it confirms.
 */
export const intentCreated: Recorded = ({ mock }) => ({ status: 200, body: { ...mock, client_secret: `${mock.id}_secret_recorded` } });

/** A 402 card error, as a confirmation the issuer declined answers: the intent back at `requires_payment_method`. */
export const cardDeclined =
  (declineCode: string): Recorded =>
  ({ path, mock }) => ({
    status: 402,
    body: {
      error: {
        type: 'card_error',
        code: 'card_declined',
        decline_code: declineCode,
        message: 'Your card was declined.',
        payment_intent: {
          ...mock,
          id: idIn(path),
          status: 'requires_payment_method',
          last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: declineCode, message: 'Your card was declined.' },
        },
      },
    },
  });

/** A 400 `invalid_request_error` with its `code` (Stripe's refusal of a request it will not carry out). */
export const invalidRequest =
  (code: string, message: string): Recorded =>
  () => ({ status: 400, body: { error: { type: 'invalid_request_error', code, message } } });

/** A refund in `status` (and `failure_reason` when it failed), its id the path's when it has one. */
export const refundIn =
  (status: string, extra: Record<string, unknown> = {}): Recorded =>
  ({ path, params, mock }) => ({
    status: 200,
    body: {
      ...mock,
      ...(idIn(path) ? { id: idIn(path) } : {}),
      ...(params.get('payment_intent') ? { payment_intent: params.get('payment_intent') } : {}),
      status,
      failure_reason: status === 'failed' ? 'expired_or_canceled_card' : null,
      ...extra,
    },
  });

/** A dispute in `status`, its id the path's. */
export const disputeIn =
  (status: string): Recorded =>
  ({ path, mock }) => ({ status: 200, body: { ...mock, id: idIn(path), status } });
