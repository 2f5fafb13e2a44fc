import type { Context } from 'koa';
import { callerOf } from '../businesses/index.js';
import { conditionalGet } from '../../http/conditional-get.js';
import type { AppDeps } from '../app-deps.js';
import { idempotency, idempotencyKeyHeader } from '../idempotency/index.js';
import { endpointExample } from './webhook.examples.js';
import { idPath, ifNoneMatchHeader } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok, pageMetaExample, WRITE } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { webhookEncryptionKey } from './secret-box.crypto.js';
import {
  createEndpointInput,
  deletedEndpointResource,
  endpointListResource,
  endpointResource,
  endpointWithSecretResource,
  pageQuery,
  updateEndpointInput,
} from './webhook.schemas.js';
import { assertReachableUrl, createEndpoint, deleteEndpoint, findEndpoint, listEndpoints, rotateSecret, updateEndpoint } from './webhook.service.js';
import { endpointView } from './webhook.view.js';
import { eventLogOperation, recoverOperation, retryOperation, testOperation } from './webhook-deliveries.routes.js';

export { webhookEventsMethodGuard } from './webhook-deliveries.routes.js';

const tags = ['Webhooks'];
const whId = idPath('wh', 'The webhook endpoint id.');
const withSecret = { success: true, data: { endpoint: endpointExample, secret: 'whsec_3q2+7w0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } };

const serviceDeps = (deps: AppDeps) => ({
  encryptionKey: webhookEncryptionKey(deps.config),
  allowPrivateUrls: deps.config.webhooks.allowPrivateUrls,
});

/**
 * The secret is shown once. A request repeated with the same Idempotency-Key gets the stored answer,
 * which holds `secret: null`: the idempotency store never keeps a secret in the clear (rotate it if the
 * first answer was lost).
 */
const answerWithSecret = async (ctx: Context, tx: Parameters<typeof createEndpoint>[0], status: number, data: { endpoint: unknown; secret: string }) => {
  await idempotency(ctx).complete(tx, status, { success: true, data: { ...data, secret: null } });
  ctx.body = { success: true, data };
};

const createOperation: Operation<AppDeps> = {
  method: 'post',
  path: '/webhooks',
  operationId: 'createWebhookEndpoint',
  doc: {
    tags,
    summary: 'Register a webhook endpoint',
    description:
      'The URL must be HTTPS and must not resolve to a private address. `events` lists event types (`*` for all; `checkout.completed` and `withdrawal.completed` are accepted for `checkout.succeeded` and `withdrawal.paid`). The signing secret is returned once, here.',
    requestParams: { header: idempotencyKeyHeader },
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: createEndpointInput,
          examples: { endpoint: { value: { url: endpointExample.url, events: endpointExample.events, description: 'Order fulfilment' } } },
        },
      },
    },
    responses: {
      '201': ok('The endpoint and its signing secret', endpointWithSecretResource, {
        example: withSecret,
        idempotent: true,
        links: Object.fromEntries(
          ['getWebhookEndpoint', 'updateWebhookEndpoint', 'patchWebhookEndpoint', 'rotateWebhookSecret', 'deleteWebhookEndpoint'].map((operationId) => [
            operationId.replace(/^./, (c) => c.toUpperCase()),
            linkById(operationId, '/data/endpoint/id'),
          ]),
        ),
      }),
      ...errors(...IDEMPOTENT_POST, 'webhook_url_not_public'),
    },
  },
  handler: (deps) => async (ctx) => {
    const input = parseBody(ctx, createEndpointInput);
    await assertReachableUrl(input.url, serviceDeps(deps));
    await deps.orm.em.fork().transactional(async (tx) => {
      const { endpoint, secret } = await createEndpoint(tx, callerOf(ctx), input, serviceDeps(deps));
      await answerWithSecret(ctx, tx, 201, { endpoint: endpointView(endpoint), secret });
    });
  },
};

const listOperation: Operation<AppDeps> = {
  method: 'get',
  path: '/webhooks',
  operationId: 'listWebhookEndpoints',
  doc: {
    tags,
    summary: 'List webhook endpoints',
    requestParams: { query: pageQuery },
    responses: {
      '200': ok('A page of endpoints', endpointListResource, { example: { success: true, data: { items: [endpointExample], meta: pageMetaExample } } }),
      ...errors(...AUTHENTICATED, 'validation_failed'),
    },
  },
  handler: (deps) => async (ctx) => {
    const { items, meta } = await listEndpoints(deps.orm.em.fork(), callerOf(ctx), parseQuery(ctx, pageQuery));
    ctx.body = { success: true, data: { items: items.map(endpointView), meta } };
  },
};

const getOperation: Operation<AppDeps> = {
  method: 'get',
  path: '/webhooks/:id',
  operationId: 'getWebhookEndpoint',
  doc: {
    tags,
    summary: 'Read a webhook endpoint',
    requestParams: { path: whId, header: ifNoneMatchHeader },
    responses: {
      '200': ok('The endpoint', endpointResource, { example: { success: true, data: endpointExample }, etag: true }),
      '304': notModified(),
      ...errors(...AUTHENTICATED, 'webhook_endpoint_not_found'),
    },
  },
  handler: (deps) => [
    conditionalGet,
    async (ctx) => {
      ctx.body = { success: true, data: endpointView(await findEndpoint(deps.orm.em.fork(), callerOf(ctx), ctx.params.id)) };
    },
  ],
};

/** The spec's conflict: PUT in the reference, PATCH in a guide. Both take the same partial body. */
const updateOperation = (method: 'put' | 'patch', operationId: string, summary: string): Operation<AppDeps> => ({
  method,
  path: '/webhooks/:id',
  operationId,
  doc: {
    tags,
    summary,
    description:
      'Every member optional; `enabled` is accepted beside `isActive` (they name one switch and must agree). No body changes nothing. The signing secret is unchanged.',
    requestParams: { path: whId },
    requestBody: {
      // A request with no body is read as `{}` (see the decisions), which updates nothing.
      required: false,
      content: { 'application/json': { schema: updateEndpointInput, examples: { disable: { value: { isActive: false, description: 'Paused during migration' } } } } },
    },
    responses: {
      '200': ok('The updated endpoint', endpointResource, {
        example: { success: true, data: { ...endpointExample, enabled: false, isActive: false, disabledReason: 'manual', disabledAt: endpointExample.updatedAt } },
      }),
      ...errors(...WRITE, 'validation_failed', 'webhook_url_not_public', 'webhook_endpoint_not_found'),
    },
  },
  handler: (deps) => async (ctx) => {
    const input = parseBody(ctx, updateEndpointInput);
    if (input.url !== undefined) await assertReachableUrl(input.url, serviceDeps(deps));
    const endpoint = await deps.orm.em.fork().transactional((tx) => updateEndpoint(tx, callerOf(ctx), ctx.params.id, input));
    ctx.body = { success: true, data: endpointView(endpoint) };
  },
});

const deleteOperation: Operation<AppDeps> = {
  method: 'delete',
  path: '/webhooks/:id',
  operationId: 'deleteWebhookEndpoint',
  doc: {
    tags,
    summary: 'Delete a webhook endpoint',
    description: 'Deliveries still waiting for their next attempt end as failed.',
    requestParams: { path: whId },
    responses: {
      '200': ok('The endpoint is deleted', deletedEndpointResource, { example: { success: true, data: { id: endpointExample.id, deleted: true } } }),
      ...errors(...WRITE, 'webhook_endpoint_not_found'),
    },
  },
  handler: (deps) => async (ctx) => {
    const deleted = await deps.orm.em.fork().transactional((tx) => deleteEndpoint(tx, callerOf(ctx), ctx.params.id));
    ctx.body = { success: true, data: deleted };
  },
};

const rotateOperation: Operation<AppDeps> = {
  method: 'post',
  path: '/webhooks/:id/rotate-secret',
  operationId: 'rotateWebhookSecret',
  doc: {
    tags,
    summary: 'Rotate the signing secret',
    description: 'Returns the new secret once. For 24 hours deliveries are signed with both the new and the old secret.',
    requestParams: { path: whId, header: idempotencyKeyHeader },
    responses: {
      '200': ok('The endpoint and its new signing secret', endpointWithSecretResource, { example: withSecret, idempotent: true }),
      ...errors(...IDEMPOTENT_POST, 'webhook_endpoint_not_found'),
    },
  },
  handler: (deps) => async (ctx) => {
    await deps.orm.em.fork().transactional(async (tx) => {
      const { endpoint, secret } = await rotateSecret(tx, callerOf(ctx), ctx.params.id, serviceDeps(deps));
      await answerWithSecret(ctx, tx, 200, { endpoint: endpointView(endpoint), secret });
    });
  },
};

/**
 * The webhook operations, in registration order (after `webhookEventsMethodGuard`): `/webhooks/events`
 * and `/webhooks/retry/:id` before `/webhooks/:id`, which would otherwise take `events` for an id.
 */
export const webhookOperations: Operation<AppDeps>[] = [
  createOperation,
  listOperation,
  eventLogOperation,
  retryOperation,
  getOperation,
  updateOperation('put', 'updateWebhookEndpoint', 'Update a webhook endpoint'),
  updateOperation('patch', 'patchWebhookEndpoint', 'Update a webhook endpoint (PATCH, the same as PUT)'),
  deleteOperation,
  testOperation,
  recoverOperation,
  rotateOperation,
];
