import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import {
  createEndpointInput,
  deletedEndpointResource,
  endpointListResource,
  endpointResource,
  endpointWithSecretResource,
  eventLogQuery,
  eventLogResource,
  pageQuery,
  retriedDeliveriesResource,
  updateEndpointInput,
} from '../../modules/webhooks/webhook.schemas.js';
import { recoveredResource, recoverInput, testEndpointInput, testSentResource } from '../../modules/webhooks/webhook-operations.schemas.js';
import { endpointExample, pageMetaExample } from './examples.js';
import { idempotencyKeyHeader, idPath, ifNoneMatchHeader } from './parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, linkById, notModified, ok, WRITE } from './responses.js';

const tags = ['Webhooks'];
const whId = idPath('wh', 'The webhook endpoint id.');
const withSecret = { success: true, data: { endpoint: endpointExample, secret: 'whsec_3q2+7w0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } };

const update = (operationId: string, summary: string) => ({
  operationId,
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
    '200': ok('The updated endpoint', endpointResource, { example: { success: true, data: { ...endpointExample, enabled: false, isActive: false, disabledReason: 'manual', disabledAt: endpointExample.updatedAt } } }),
    ...errors(...WRITE, 'validation_failed', 'webhook_url_not_public', 'webhook_endpoint_not_found'),
  },
});

export const webhookPaths: ZodOpenApiPathsObject = {
  '/webhooks': {
    post: {
      operationId: 'createWebhookEndpoint',
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
    get: {
      operationId: 'listWebhookEndpoints',
      tags,
      summary: 'List webhook endpoints',
      requestParams: { query: pageQuery },
      responses: {
        '200': ok('A page of endpoints', endpointListResource, { example: { success: true, data: { items: [endpointExample], meta: pageMetaExample } } }),
        ...errors(...AUTHENTICATED, 'validation_failed'),
      },
    },
  },
  '/webhooks/events': {
    get: {
      operationId: 'listWebhookEvents',
      tags,
      summary: 'List events and their deliveries',
      description: 'Newest first, each event with its deliveries and their attempts. `endpointId` and `status` select events that have such a delivery, and show only those deliveries.',
      requestParams: { query: eventLogQuery },
      responses: {
        '200': ok('A page of events', eventLogResource),
        ...errors(...AUTHENTICATED, 'validation_failed'),
      },
    },
  },
  '/webhooks/retry/{id}': {
    post: {
      operationId: 'retryWebhookDelivery',
      tags,
      summary: 'Deliver an event again',
      description:
        "An event id (`evt_…`) re-delivers it to each enabled endpoint whose last delivery of it failed; a delivery id (`whd_…`) re-delivers that one. Each re-delivery is a new delivery (the next generation) with the same body. No body.",
      requestParams: {
        path: z.object({ id: z.string().regex(/^(evt|whd)_[0-9a-f]{32}$/).meta({ description: 'An event id or a delivery id.', example: 'evt_0190f4c2a7e07b3c9d1e2f3a4b5c6d50' }) }),
        header: idempotencyKeyHeader,
      },
      responses: {
        '200': ok('The new deliveries', retriedDeliveriesResource, { idempotent: true }),
        ...errors(...IDEMPOTENT_POST, 'webhook_endpoint_disabled', 'event_not_found', 'webhook_endpoint_not_found'),
      },
    },
  },
  '/webhooks/{id}': {
    get: {
      operationId: 'getWebhookEndpoint',
      tags,
      summary: 'Read a webhook endpoint',
      requestParams: { path: whId, header: ifNoneMatchHeader },
      responses: {
        '200': ok('The endpoint', endpointResource, { example: { success: true, data: endpointExample }, etag: true }),
        '304': notModified(),
        ...errors(...AUTHENTICATED, 'webhook_endpoint_not_found'),
      },
    },
    put: update('updateWebhookEndpoint', 'Update a webhook endpoint'),
    patch: update('patchWebhookEndpoint', 'Update a webhook endpoint (PATCH, the same as PUT)'),
    delete: {
      operationId: 'deleteWebhookEndpoint',
      tags,
      summary: 'Delete a webhook endpoint',
      description: 'Deliveries still waiting for their next attempt end as failed.',
      requestParams: { path: whId },
      responses: {
        '200': ok('The endpoint is deleted', deletedEndpointResource, { example: { success: true, data: { id: endpointExample.id, deleted: true } } }),
        ...errors(...WRITE, 'webhook_endpoint_not_found'),
      },
    },
  },
  '/webhooks/{id}/test': {
    post: {
      operationId: 'testWebhookEndpoint',
      tags,
      summary: 'Send a test event to an endpoint',
      description:
        'Sends one signed event, marked `test: true`, to this endpoint only, whatever it subscribes to: `webhook.test` by default, or a sample payload of the `eventType` given. It is delivered and retried like any other event and appears in `GET /api/webhooks/events`. A disabled endpoint is refused.',
      requestParams: { path: whId, header: idempotencyKeyHeader },
      requestBody: {
        required: false,
        content: { 'application/json': { schema: testEndpointInput, examples: { ping: { value: {} }, sample: { value: { eventType: 'checkout.succeeded' } } } } },
      },
      responses: {
        '202': ok('The test event and its delivery', testSentResource, { idempotent: true }),
        ...errors(...IDEMPOTENT_POST, 'webhook_endpoint_disabled', 'webhook_endpoint_not_found'),
      },
    },
  },
  '/webhooks/{id}/recover': {
    post: {
      operationId: 'recoverWebhookEndpoint',
      tags,
      summary: 'Re-send the failed events of a time window',
      description:
        'Every event created between `since` (at most 14 days ago) and `until` (default: now) whose latest delivery to this endpoint ended `failed` is sent again, each as a new delivery generation on the normal schedule. A second identical call while those are in flight recovers nothing twice. A disabled endpoint is refused: enable it first.',
      requestParams: { path: whId, header: idempotencyKeyHeader },
      requestBody: {
        required: true,
        content: { 'application/json': { schema: recoverInput, examples: { outage: { value: { since: '2026-11-20T08:00:00Z', until: '2026-11-20T14:00:00Z' } } } } },
      },
      responses: {
        '202': ok('How many events are being sent again', recoveredResource, { idempotent: true, example: { success: true, data: { recovered: 3 } } }),
        ...errors(...IDEMPOTENT_POST, 'webhook_endpoint_disabled', 'webhook_endpoint_not_found'),
      },
    },
  },
  '/webhooks/{id}/rotate-secret': {
    post: {
      operationId: 'rotateWebhookSecret',
      tags,
      summary: 'Rotate the signing secret',
      description: 'Returns the new secret once. For 24 hours deliveries are signed with both the new and the old secret.',
      requestParams: { path: whId, header: idempotencyKeyHeader },
      responses: {
        '200': ok('The endpoint and its new signing secret', endpointWithSecretResource, { example: withSecret, idempotent: true }),
        ...errors(...IDEMPOTENT_POST, 'webhook_endpoint_not_found'),
      },
    },
  },
};
