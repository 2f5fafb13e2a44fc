import type Router from '@koa/router';
import type { Context } from 'koa';
import { callerOf } from '../../http/auth.js';
import type { AppDeps } from '../../http/deps.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { listEventLog } from './event-log.js';
import { retryDeliveries } from './manual-retry.js';
import { webhookEncryptionKey } from './secret-box.js';
import { createEndpointInput, eventLogQuery, pageQuery, updateEndpointInput } from './webhook.schemas.js';
import { createEndpoint, deleteEndpoint, findEndpoint, listEndpoints, rotateSecret, updateEndpoint } from './webhook.service.js';
import { deliveryView, endpointView } from './webhook.view.js';

export function webhookRoutes(router: Router, deps: AppDeps): void {
  const serviceDeps = () => ({
    encryptionKey: webhookEncryptionKey(deps.config),
    allowPrivateUrls: deps.config.webhooks.allowPrivateUrls,
  });
  const em = () => deps.orm.em.fork();

  // Registered before `/webhooks/:id`, which would otherwise take `events` for an endpoint id.
  router.get('/webhooks/events', async (ctx) => {
    const { items, meta } = await listEventLog(em(), callerOf(ctx), parseQuery(ctx, eventLogQuery));
    ctx.body = { success: true, data: { items, meta } };
  });

  router.post('/webhooks/retry/:id', async (ctx) => {
    const { deliveries, outboxIds } = await retryDeliveries(em(), callerOf(ctx), ctx.params.id, {
      retryDelaysMs: deps.config.webhooks.retryDelaysMs,
    });
    deps.afterCommit(outboxIds);
    ctx.body = { success: true, data: { deliveries: deliveries.map((d) => deliveryView(d, [])) } };
  });

  router.post('/webhooks', async (ctx) => {
    const input = parseBody(ctx, createEndpointInput);
    const { endpoint, secret } = await createEndpoint(em(), callerOf(ctx), input, serviceDeps());
    ctx.status = 201;
    ctx.body = { success: true, data: { endpoint: endpointView(endpoint), secret } };
  });

  router.get('/webhooks', async (ctx) => {
    const { items, meta } = await listEndpoints(em(), callerOf(ctx), parseQuery(ctx, pageQuery));
    ctx.body = { success: true, data: { items: items.map(endpointView), meta } };
  });

  router.get('/webhooks/:id', async (ctx) => {
    ctx.body = { success: true, data: endpointView(await findEndpoint(em(), callerOf(ctx), ctx.params.id)) };
  });

  // The spec's conflict: PUT in the reference, PATCH in a guide. Both take the same partial body.
  const update = async (ctx: Context & { params: { id: string } }) => {
    const input = parseBody(ctx, updateEndpointInput);
    const endpoint = await updateEndpoint(em(), callerOf(ctx), ctx.params.id, input, serviceDeps());
    ctx.body = { success: true, data: endpointView(endpoint) };
  };
  router.put('/webhooks/:id', update);
  router.patch('/webhooks/:id', update);

  router.delete('/webhooks/:id', async (ctx) => {
    ctx.body = { success: true, data: await deleteEndpoint(em(), callerOf(ctx), ctx.params.id) };
  });

  router.post('/webhooks/:id/rotate-secret', async (ctx) => {
    const { endpoint, secret } = await rotateSecret(em(), callerOf(ctx), ctx.params.id, serviceDeps());
    ctx.body = { success: true, data: { endpoint: endpointView(endpoint), secret } };
  });
}
