import type { EntityManager } from '@mikro-orm/postgresql';
import { callerOf } from '../businesses/index.js';
import { conditionalGet } from '../../http/conditional-get.js';
import { idempotency, idempotencyKeyHeader } from '../idempotency/index.js';
import { sessionExample, sessionListItemExample } from './session.examples.js';
import { ifNoneMatchHeader, sessionIdPath } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok, pageMetaExample } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import type { AppDeps } from '../app-deps.js';
import { parseBody } from '../../http/validate.js';
import { createSessionInput, listSessionsQuery, sessionListResource, sessionResource } from './session.schemas.js';
import { listSessions } from './session.queries.js';
import { createSession, findSession } from './session.service.js';
import { sessionListView, sessionView } from './session.view.js';

const tags = ['Checkout sessions'];

/** The checkout session operations: each one's route, contract and service call. */
export const sessionOperations: Operation<AppDeps>[] = [
  {
    method: 'post',
    path: '/checkout/sessions',
    operationId: 'createCheckoutSession',
    doc: {
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
    handler: (deps) => async (ctx) => {
      const input = parseBody(ctx, createSessionInput);
      const answer = idempotency(ctx);
      const create = async (em: EntityManager) => {
        const { session, items } = await createSession(em, callerOf(ctx), input, { sessionTtlMs: deps.config.sessionTtlMs });
        await answer.complete(em, 201, { success: true, data: sessionView(session, items, deps.checkoutBaseUrl) });
      };
      // The create is one statement, atomic alone; a stored answer must commit with it, in a fork's
      // transaction. Alone it needs no fork: it loads no entity and flushes nothing, and takes only the
      // connection from the manager (a fork's identity map and unit of work were measurable on the busiest
      // request; MikroORM refuses any entity work on the global manager, so none can slip in unnoticed).
      await (answer.storesAnswer ? deps.orm.em.fork().transactional(create) : create(deps.orm.em));
    },
  },
  {
    method: 'get',
    path: '/checkout/sessions',
    operationId: 'listCheckoutSessions',
    doc: {
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
    handler: (deps) => async (ctx) => {
      const result = await listSessions(deps.orm.em.fork(), callerOf(ctx), ctx.query);
      ctx.body = {
        success: true,
        data: {
          items: result.items.map((s) => sessionListView(s, deps.checkoutBaseUrl)),
          meta: result.meta,
          nextCursor: result.nextCursor,
        },
      };
    },
  },
  {
    method: 'get',
    path: '/checkout/sessions/:id',
    operationId: 'getCheckoutSession',
    doc: {
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
    handler: (deps) => [
      conditionalGet,
      async (ctx) => {
        const { session, items, disputeId } = await findSession(deps.orm.em.fork(), callerOf(ctx), ctx.params.id, deps.disputeOfSession);
        ctx.body = { success: true, data: sessionView(session, items, deps.checkoutBaseUrl, disputeId) };
      },
    ],
  },
];
