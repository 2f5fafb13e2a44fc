import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { createSessionInput, listSessionsQuery, sessionListResource, sessionResource } from '../../modules/checkout/session.schemas.js';
import { pageMetaExample, sessionExample, sessionListItemExample } from './examples.js';
import { idempotencyKeyHeader, ifNoneMatchHeader, sessionIdPath } from './parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok } from './responses.js';

const tags = ['Checkout sessions'];

export const sessionPaths: ZodOpenApiPathsObject = {
  '/checkout/sessions': {
    post: {
      operationId: 'createCheckoutSession',
      tags,
      summary: 'Create a checkout session',
      description:
        'Line items in dollars become integer cents here. The response carries the `checkoutUrl` to send the customer to; confirm payment by reading the session or by webhook, never by the redirect alone. A session still pending after 24 hours is cancelled.',
      requestParams: { header: idempotencyKeyHeader },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: createSessionInput,
            examples: {
              session: {
                value: {
                  description: 'Order A-1001',
                  customer: { email: 'ada@example.com' },
                  askShipping: true,
                  urls: { success: 'https://shop.example.com/thanks', cancel: 'https://shop.example.com/cart' },
                  items: [{ name: 'Espresso beans, 1 kg', description: 'Single origin', price: 24.5, quantity: 2, imageUrl: 'https://shop.example.com/img/beans.png' }],
                  metadata: { orderId: 'A-1001' },
                },
              },
            },
          },
        },
      },
      responses: {
        '201': ok('The session, with its items', sessionResource, {
          example: { success: true, data: sessionExample },
          idempotent: true,
          links: { ReadSession: linkById('getCheckoutSession'), PaySession: linkById('payCheckoutSession', '/data/id', 'The hosted page pays it.') },
        }),
        ...errors(...IDEMPOTENT_POST),
      },
    },
    get: {
      operationId: 'listCheckoutSessions',
      tags,
      summary: 'List checkout sessions',
      description:
        'Newest first. Page by `page`, or by the opaque `cursor` from the previous answer (a cursor wins over `page` and stays stable while new sessions arrive). `from`/`startDate` are inclusive, `to`/`endDate` exclusive.',
      requestParams: { query: listSessionsQuery },
      responses: {
        '200': ok('A page of sessions (list form)', sessionListResource, {
          example: { success: true, data: { items: [sessionListItemExample], meta: pageMetaExample, nextCursor: null } },
        }),
        ...errors(...AUTHENTICATED, 'validation_failed'),
      },
    },
  },
  '/checkout/sessions/{id}': {
    get: {
      operationId: 'getCheckoutSession',
      tags,
      summary: 'Read a checkout session',
      description: "Another business's or mode's session, or an id that is not a UUID, is not found.",
      requestParams: { path: sessionIdPath, header: ifNoneMatchHeader },
      responses: {
        '200': ok('The session, with its items', sessionResource, { example: { success: true, data: sessionExample }, etag: true }),
        '304': notModified(),
        ...errors(...AUTHENTICATED, 'session_not_found'),
      },
    },
  },
};
