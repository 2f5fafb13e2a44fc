import type Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../../http/errors.js';
import { callerOf } from '../../http/auth.js';
import { conditionalGet } from '../../http/conditional-get.js';
import type { AppDeps } from '../../http/deps.js';
import { idempotency } from '../../http/idempotency.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { listEventLog } from './event-log.queries.js';
import { retryDeliveries } from './manual-retry.service.js';
import { webhookEncryptionKey } from './secret-box.crypto.js';
import { createEndpointInput, eventLogQuery, pageQuery, updateEndpointInput } from './webhook.schemas.js';
import {
  assertReachableUrl,
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listEndpoints,
  lockEnabledEndpoint,
  rotateSecret,
  updateEndpoint,
} from './webhook.service.js';
import { deliveryView, endpointView } from './webhook.view.js';
import { recoverInput, testEndpointInput } from './webhook-operations.schemas.js';
import { recoverEvents, sendTestEvent } from './webhook-operations.service.js';

export function webhookRoutes(router: Router, deps: AppDeps): void {
  const serviceDeps = () => ({
    encryptionKey: webhookEncryptionKey(deps.config),
    allowPrivateUrls: deps.config.webhooks.allowPrivateUrls,
  });
  const em = () => deps.orm.em.fork();

  // `/webhooks/events` is a path of its own (GET only), which the `/webhooks/:id` routes of other methods
  // would take for an endpoint id, and whose methods the router would then advertise in `Allow`. This
  // guard, registered first, answers every other method there as that path's 405 (and OPTIONS with its
  // own methods).
  router.all('/webhooks/events', async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') return next();
    ctx.set('Allow', 'HEAD, GET');
    if (ctx.method !== 'OPTIONS') throw new ApiError('method_not_allowed');
    ctx.status = 200;
    ctx.body = '';
  });

  // Registered before `/webhooks/:id`, which would otherwise take `events` for an endpoint id.
  router.get('/webhooks/events', async (ctx) => {
    const { items, meta } = await listEventLog(em(), callerOf(ctx), parseQuery(ctx, eventLogQuery));
    ctx.body = { success: true, data: { items, meta } };
  });

  router.post('/webhooks/retry/:id', async (ctx) => {
    const outbox = await em().transactional(async (tx) => {
      const { deliveries, outbox } = await retryDeliveries(tx, callerOf(ctx), ctx.params.id, {
        retryDelaysMs: deps.config.webhooks.retryDelaysMs,
      });
      await idempotency(ctx).complete(tx, 200, { success: true, data: { deliveries: deliveries.map((d) => deliveryView(d, [])) } });
      return outbox;
    });
    deps.afterCommit(outbox);
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

  router.post('/webhooks', async (ctx) => {
    const input = parseBody(ctx, createEndpointInput);
    await assertReachableUrl(input.url, serviceDeps());
    await em().transactional(async (tx) => {
      const { endpoint, secret } = await createEndpoint(tx, callerOf(ctx), input, serviceDeps());
      await answerWithSecret(ctx, tx, 201, { endpoint: endpointView(endpoint), secret });
    });
  });

  router.get('/webhooks', async (ctx) => {
    const { items, meta } = await listEndpoints(em(), callerOf(ctx), parseQuery(ctx, pageQuery));
    ctx.body = { success: true, data: { items: items.map(endpointView), meta } };
  });

  router.get('/webhooks/:id', conditionalGet, async (ctx) => {
    ctx.body = { success: true, data: endpointView(await findEndpoint(em(), callerOf(ctx), ctx.params.id)) };
  });

  // The spec's conflict: PUT in the reference, PATCH in a guide. Both take the same partial body.
  const update = async (ctx: Context & { params: { id: string } }) => {
    const input = parseBody(ctx, updateEndpointInput);
    if (input.url !== undefined) await assertReachableUrl(input.url, serviceDeps());
    const endpoint = await em().transactional((tx) => updateEndpoint(tx, callerOf(ctx), ctx.params.id, input));
    ctx.body = { success: true, data: endpointView(endpoint) };
  };
  router.put('/webhooks/:id', update);
  router.patch('/webhooks/:id', update);

  router.delete('/webhooks/:id', async (ctx) => {
    const deleted = await em().transactional((tx) => deleteEndpoint(tx, callerOf(ctx), ctx.params.id));
    ctx.body = { success: true, data: deleted };
  });

  // Test ping and recovery: the deliveries' workflows start through the outbox written with them.
  router.post('/webhooks/:id/test', async (ctx) => {
    const input = parseBody(ctx, testEndpointInput);
    const outbox = await em().transactional(async (tx) => {
      const endpoint = await lockEnabledEndpoint(tx, callerOf(ctx), ctx.params.id);
      const { eventId, deliveryId, outbox } = await sendTestEvent(tx, endpoint, input, { retryDelaysMs: deps.config.webhooks.retryDelaysMs });
      await idempotency(ctx).complete(tx, 202, { success: true, data: { eventId, deliveryId } });
      return outbox;
    });
    deps.afterCommit(outbox);
  });

  router.post('/webhooks/:id/recover', async (ctx) => {
    const input = parseBody(ctx, recoverInput);
    const outbox = await em().transactional(async (tx) => {
      const endpoint = await lockEnabledEndpoint(tx, callerOf(ctx), ctx.params.id);
      const { recovered, outbox } = await recoverEvents(tx, endpoint, input, { retryDelaysMs: deps.config.webhooks.retryDelaysMs });
      await idempotency(ctx).complete(tx, 202, { success: true, data: { recovered } });
      return outbox;
    });
    deps.afterCommit(outbox);
  });

  router.post('/webhooks/:id/rotate-secret', async (ctx) => {
    await em().transactional(async (tx) => {
      const { endpoint, secret } = await rotateSecret(tx, callerOf(ctx), ctx.params.id, serviceDeps());
      await answerWithSecret(ctx, tx, 200, { endpoint: endpointView(endpoint), secret });
    });
  });
}
