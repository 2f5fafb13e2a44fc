import type Router from '@koa/router';
import { callerOf } from '../../http/auth.js';
import type { AppDeps } from '../../http/deps.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { createRefundInput, listRefundsQuery } from './refund.schemas.js';
import { createRefund, findRefund, listRefunds } from './refund.service.js';
import { refundView } from './refund.view.js';

export function refundRoutes(router: Router, deps: AppDeps): void {
  router.post('/refunds', async (ctx) => {
    const input = parseBody(ctx, createRefundInput);
    const { refund, outbox } = await createRefund(deps.orm.em.fork(), callerOf(ctx), input);
    deps.afterCommit([outbox.id]);
    ctx.status = 201;
    ctx.body = { success: true, data: refundView(refund) };
  });

  router.get('/refunds', async (ctx) => {
    const query = parseQuery(ctx, listRefundsQuery);
    const { items, pagination } = await listRefunds(deps.orm.em.fork(), callerOf(ctx), query);
    ctx.body = { success: true, data: items.map(refundView), pagination };
  });

  router.get('/refunds/:id', async (ctx) => {
    const refund = await findRefund(deps.orm.em.fork(), callerOf(ctx), ctx.params.id);
    ctx.body = { success: true, data: refundView(refund) };
  });
}
