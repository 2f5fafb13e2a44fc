import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { payAnswerResource, payInput } from '../../modules/checkout/pay.schemas.js';
import { sessionIdPath } from './parameters.js';
import { errors, ok, PUBLIC_POST } from './responses.js';

export const payPaths: ZodOpenApiPathsObject = {
  '/checkout/{id}/pay': {
    post: {
      operationId: 'payCheckoutSession',
      tags: ['Hosted checkout'],
      summary: 'Pay a checkout session (the hosted page)',
      description:
        "Called by the hosted checkout page; no API key: the session id is the capability. The card is tokenized at once and never stored. The call waits up to 10 seconds for the outcome, then answers `processing`; read the session for the final state. Limited to 10 calls a minute per session. `shipping` is required when the session asks for it. Idempotency-Key is not used here: the session's own state makes a repeat harmless (a paid session answers 400).",
      security: [],
      requestParams: { path: sessionIdPath },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: payInput,
            examples: {
              card: {
                value: {
                  card: { number: '4242 4242 4242 4242', expMonth: 12, expYear: 2030, cvc: '123' },
                  name: 'Ada Lovelace',
                  email: 'ada@example.com',
                  shipping: { addressLine1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
                },
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
  },
};
