import type Router from '@koa/router';
import { callerOf } from '../../http/auth.js';
import { conditionalGet } from '../../http/conditional-get.js';
import type { AppDeps } from '../../http/deps.js';
import { idempotency } from '../../http/idempotency.js';
import { metrics } from '../../ops/metrics.js';
import { requireLivePayments } from '../processor/live-mode.rules.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { createRefundInput, listRefundsQuery } from './refund.schemas.js';
import { createRefund, findRefund, listRefunds } from './refund.service.js';
import { refundView } from './refund.view.js';

export function refundRoutes(router: Router, deps: AppDeps): void {
  router.post('/refunds', async (ctx) => {
    // Live mode fails closed: no live refund reaches the simulator unless the operator allowed it.
    requireLivePayments(deps.config.livePayments, callerOf(ctx).livemode);
    const input = parseBody(ctx, createRefundInput);
    const outbox = await deps.orm.em.fork().transactional(async (tx) => {
      const { refund, outbox } = await createRefund(tx, callerOf(ctx), input);
      await idempotency(ctx).complete(tx, 201, { success: true, data: refundView(refund) });
      return outbox;
    });
    deps.afterCommit([outbox]);
    metrics.refund('created');
  });

  router.get('/refunds', async (ctx) => {
    const query = parseQuery(ctx, listRefundsQuery);
    const { items, pagination } = await listRefunds(deps.orm.em.fork(), callerOf(ctx), query);
    ctx.body = { success: true, data: items.map(refundView), pagination };
  });

  router.get('/refunds/:id', conditionalGet, async (ctx) => {
    const refund = await findRefund(deps.orm.em.fork(), callerOf(ctx), ctx.params.id);
    ctx.body = { success: true, data: refundView(refund) };
  });
}
