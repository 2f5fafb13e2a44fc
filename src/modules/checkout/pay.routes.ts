import { sessionIdPath } from '../../http/openapi/parameters.js';
import { errors, ok, PUBLIC_POST } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import type { AppDeps } from '../app-deps.js';
import { createRateLimiter, publicRateLimit, rateLimit } from '../../http/rate-limit.js';
import { parseBody } from '../../http/validate.js';
import { metrics } from '../../ops/metrics.js';
import { acquirerOf } from '../processor/index.js';
import { payAnswerResource, payInBrowserInput, payInput, payRequestBody } from './pay.schemas.js';
import { checkoutUrl } from './session.view.js';
import { confirmsInBrowser, payableSession, payCheckout } from './pay.service.js';

/** How long a pay call waits for the outcome before answering `processing`. */
export const PAY_WAIT_MS = 10_000;

/**
 * The one spelling of a session id, whatever spelling reached the route: PostgreSQL reads a UUID in upper
 * case, without hyphens or in braces as the same value, so the per-session limit is keyed on this form,
 * or a caller could rotate spellings for ten more tries each. Not a UUID: the raw text, bounded (the
 * counters' key column is 255 characters), which names no session anyway.
 */
export function canonicalSessionId(id: string): string {
  const hex = id.replace(/^\{|\}$/g, '').replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return id.slice(0, 64);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The hosted page's pay call. Public: no API key reaches the page, and the unguessable session id is
 * the capability. Limited to 10 calls a minute per session, which also bounds card-testing on one session,
 * and, with the hosted page and cancel, to PUBLIC_RATE_LIMIT_PER_MINUTE per client address.
 */
export const payOperations: Operation<AppDeps>[] = [
  {
    method: 'post',
    path: '/checkout/:id/pay',
    operationId: 'payCheckoutSession',
    doc: {
      tags: ['Hosted checkout'],
      summary: 'Pay a checkout session (the hosted page)',
      description:
        "Called by the hosted checkout page; no API key: the session id is the capability. The card is tokenized at once and never stored. In live mode with Stripe the body carries no card (one is refused): the answer's `confirmation` holds the PaymentIntent's client secret, which the page confirms with Stripe.js, and the outcome follows from Stripe. The call waits up to 10 seconds for the outcome, then answers `processing`; read the session for the final state. Limited to 10 calls a minute per session. `shipping` is required when the session asks for it. Idempotency-Key is not used here: the session's own state makes a repeat harmless (a paid session answers 400).",
      security: [],
      requestParams: { path: sessionIdPath },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: payRequestBody,
            examples: {
              card: {
                value: {
                  card: { number: '4242 4242 4242 4242', expMonth: 12, expYear: 2030, cvc: '123' },
                  name: 'Ada Lovelace',
                  email: 'ada@example.com',
                  shipping: { addressLine1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
                },
              },
              browser: {
                summary: 'Live mode with Stripe: no card; the page confirms the answer\'s client secret with Stripe.js',
                value: { name: 'Ada Lovelace', email: 'ada@example.com' },
              },
            },
          },
        },
      },
      responses: {
        '200': ok('The outcome so far', payAnswerResource, {
          example: { success: true, data: { sessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', status: 'completed', redirectUrl: 'https://shop.example.com/thanks?session_id=0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e' } },
        }),
        ...errors(...PUBLIC_POST, 'validation_failed', 'session_not_payable', 'session_not_found', 'live_payments_refused'),
      },
    },
    handler: (deps) => {
      const limiter = createRateLimiter(deps.orm, { name: 'pay', points: 10, durationSeconds: 60 });
      const payDeps = {
        orm: deps.orm,
        temporal: deps.temporal,
        taskQueue: deps.config.temporal.taskQueue,
        processor: deps.processor,
        waitMs: PAY_WAIT_MS,
        livePayments: deps.config.livePayments,
        acquirerOf: (livemode: boolean) => acquirerOf(deps.config, livemode),
        log: deps.log,
        // Read when asked: the process learns its own origin once it listens (src/main/runtime.ts).
        pageUrlOf: (sessionId: string) => checkoutUrl(deps.checkoutBaseUrl, sessionId),
      };
      return [
        publicRateLimit(deps),
        rateLimit(limiter, (ctx) => canonicalSessionId(ctx.params.id)),
        async (ctx) => {
          const started = performance.now();
          // The session's own checks come before anything about the body (docs/decisions.md, Order of pay checks).
          const session = await payableSession(payDeps, ctx.params.id);
          const input = confirmsInBrowser(payDeps.livePayments, session) ? parseBody(ctx, payInBrowserInput) : parseBody(ctx, payInput);
          ctx.body = { success: true, data: await payCheckout(payDeps, session, input, metrics.payPhase('session', started)) };
        },
      ];
    },
  },
];
