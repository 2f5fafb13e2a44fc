import type Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { callerOf } from '../businesses/index.js';
import type { AppDeps } from '../app-deps.js';
import { idempotency, idempotencyKeyHeader } from '../idempotency/index.js';
import { idPath } from '../../http/openapi/parameters.js';
import { AUTHENTICATED, errors, IDEMPOTENT_POST, ok } from '../../http/openapi/responses.js';
import type { Operation } from '../../http/operation.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { listEventLog } from './event-log.queries.js';
import { retryDeliveries } from './manual-retry.service.js';
import { eventLogQuery, eventLogResource, retriedDeliveriesResource } from './webhook.schemas.js';
import { lockEnabledEndpoint } from './webhook.service.js';
import { deliveryView } from './delivery.view.js';
import { recoveredResource, recoverInput, testEndpointInput, testSentResource } from './webhook-deliveries.schemas.js';
import { recoverEvents, sendTestEvent } from './webhook-deliveries.service.js';

/** What is sent rather than configured: the event log, a manual retry, the test ping and recovery. */

const tags = ['Webhooks'];
const whId = idPath('wh', 'The webhook endpoint id.');

/**
 * `/webhooks/events` is a path of its own (GET only), which the `/webhooks/:id` routes of other methods
 * would take for an endpoint id, and whose methods the router would then advertise in `Allow`. This
 * guard, registered before the webhook operations, answers every other method there as that path's 405
 * (and OPTIONS with its own methods).
 */
export function webhookEventsMethodGuard(router: Router): void {
  router.all('/webhooks/events', async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') return next();
    ctx.set('Allow', 'HEAD, GET');
    if (ctx.method !== 'OPTIONS') throw new ApiError('method_not_allowed');
    ctx.status = 200;
    ctx.body = '';
  });
}

/** The test ping and recovery answer 202: their deliveries' workflows start through the outbox written with them. */
const retryDelays = (deps: AppDeps) => ({ retryDelaysMs: deps.config.webhooks.retryDelaysMs });

// Registered before `/webhooks/:id`, which would otherwise take `events` for an endpoint id.
export const eventLogOperation: Operation<AppDeps> = {
  method: 'get',
  path: '/webhooks/events',
  operationId: 'listWebhookEvents',
  doc: {
    tags,
    summary: 'List events and their deliveries',
    description: 'Newest first, each event with its deliveries and their attempts. `endpointId` and `status` select events that have such a delivery, and show only those deliveries.',
    requestParams: { query: eventLogQuery },
    responses: {
      '200': ok('A page of events', eventLogResource),
      ...errors(...AUTHENTICATED, 'validation_failed'),
    },
  },
  handler: (deps) => async (ctx) => {
    const { items, meta } = await listEventLog(deps.orm.em.fork(), callerOf(ctx), parseQuery(ctx, eventLogQuery));
    ctx.body = { success: true, data: { items, meta } };
  },
};

export const retryOperation: Operation<AppDeps> = {
  method: 'post',
  path: '/webhooks/retry/:id',
  operationId: 'retryWebhookDelivery',
  doc: {
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
  handler: (deps) => async (ctx) => {
    const outbox = await deps.orm.em.fork().transactional(async (tx) => {
      const { deliveries, outbox } = await retryDeliveries(tx, callerOf(ctx), ctx.params.id, retryDelays(deps));
      await idempotency(ctx).complete(tx, 200, { success: true, data: { deliveries: deliveries.map((d) => deliveryView(d, [])) } });
      return outbox;
    });
    deps.afterCommit(outbox);
  },
};

export const testOperation: Operation<AppDeps> = {
  method: 'post',
  path: '/webhooks/:id/test',
  operationId: 'testWebhookEndpoint',
  doc: {
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
  handler: (deps) => async (ctx) => {
    const input = parseBody(ctx, testEndpointInput);
    const outbox = await deps.orm.em.fork().transactional(async (tx) => {
      const endpoint = await lockEnabledEndpoint(tx, callerOf(ctx), ctx.params.id);
      const { eventId, deliveryId, outbox } = await sendTestEvent(tx, endpoint, input, retryDelays(deps));
      await idempotency(ctx).complete(tx, 202, { success: true, data: { eventId, deliveryId } });
      return outbox;
    });
    deps.afterCommit(outbox);
  },
};

export const recoverOperation: Operation<AppDeps> = {
  method: 'post',
  path: '/webhooks/:id/recover',
  operationId: 'recoverWebhookEndpoint',
  doc: {
    tags,
    summary: 'Re-send the failed events of a time window',
    description:
      'Every event created between `since` (at most 14 days ago) and `until` (default: now) whose latest delivery to this endpoint ended `failed` is sent again, each as a new delivery generation on the normal schedule: at most 1,000 events a call, oldest first, their deliveries starting at 20 a second. `hasMore: true` says more remain; the same call again recovers the next page. A second identical call while those are in flight recovers nothing twice. A disabled endpoint is refused: enable it first.',
    requestParams: { path: whId, header: idempotencyKeyHeader },
    requestBody: {
      required: true,
      content: { 'application/json': { schema: recoverInput, examples: { outage: { value: { since: '2026-11-20T08:00:00Z', until: '2026-11-20T14:00:00Z' } } } } },
    },
    responses: {
      '202': ok('How many events are being sent again', recoveredResource, { idempotent: true, example: { success: true, data: { recovered: 3, hasMore: false } } }),
      ...errors(...IDEMPOTENT_POST, 'webhook_endpoint_disabled', 'webhook_endpoint_not_found'),
    },
  },
  handler: (deps) => async (ctx) => {
    const input = parseBody(ctx, recoverInput);
    const outbox = await deps.orm.em.fork().transactional(async (tx) => {
      const endpoint = await lockEnabledEndpoint(tx, callerOf(ctx), ctx.params.id);
      const { recovered, hasMore, outbox } = await recoverEvents(tx, endpoint, input, retryDelays(deps));
      await idempotency(ctx).complete(tx, 202, { success: true, data: { recovered, hasMore } });
      return outbox;
    });
    deps.afterCommit(outbox);
  },
};
