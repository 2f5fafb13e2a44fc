import type Router from '@koa/router';
import { withdrawalCancelledSignal } from '../../../workflows/withdrawals.js';
import { callerOf } from '../../http/auth.js';
import { conditionalGet } from '../../http/conditional-get.js';
import type { AppDeps } from '../../http/deps.js';
import { idempotency } from '../../http/idempotency.js';
import { metrics } from '../../ops/metrics.js';
import { requireLivePayments } from '../processor/live-mode.rules.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { createWithdrawalInput, listWithdrawalsQuery } from './withdrawal.schemas.js';
import { cancelWithdrawal, createWithdrawal, findWithdrawal, listWithdrawals, withdrawalWorkflowId } from './withdrawal.service.js';
import { cancelledWithdrawalView, createdWithdrawalView, withdrawalListView, withdrawalView } from './withdrawal.view.js';

export function withdrawalRoutes(router: Router, deps: AppDeps): void {
  router.post('/withdrawals', async (ctx) => {
    // Live mode fails closed: no live payout reaches the simulator unless the operator allowed it.
    requireLivePayments(deps.config.livePayments, callerOf(ctx).livemode);
    const input = parseBody(ctx, createWithdrawalInput);
    const outbox = await deps.orm.em.fork().transactional(async (tx) => {
      const { withdrawal, outbox } = await createWithdrawal(tx, callerOf(ctx), input, {
        processingDelayMs: deps.config.withdrawalProcessingDelayMs,
      });
      await idempotency(ctx).complete(tx, 201, { success: true, data: createdWithdrawalView(withdrawal) });
      return outbox;
    });
    deps.afterCommit([outbox]);
    metrics.withdrawal('requested');
  });

  router.get('/withdrawals', async (ctx) => {
    const query = parseQuery(ctx, listWithdrawalsQuery);
    const { items, meta } = await listWithdrawals(deps.orm.em.fork(), callerOf(ctx), query);
    ctx.body = { success: true, data: { items: items.map(withdrawalListView), meta } };
  });

  router.get('/withdrawals/:id', conditionalGet, async (ctx) => {
    const withdrawal = await findWithdrawal(deps.orm.em.fork(), callerOf(ctx), ctx.params.id);
    ctx.body = { success: true, data: withdrawalView(withdrawal) };
  });

  router.post('/withdrawals/:id/cancel', async (ctx) => {
    const withdrawal = await deps.orm.em.fork().transactional(async (tx) => {
      const cancelled = await cancelWithdrawal(tx, callerOf(ctx), ctx.params.id);
      await idempotency(ctx).complete(tx, 200, { success: true, data: cancelledWithdrawalView(cancelled) });
      return cancelled;
    });
    metrics.withdrawal('cancelled');
    // After the commit, so the workflow ends at once. If this is lost (a crash, a workflow not yet
    // started), the workflow's conditional move to processing finds `cancelled` and ends anyway.
    deps.temporal.workflow
      .getHandle(withdrawalWorkflowId(withdrawal.id))
      .signal(withdrawalCancelledSignal, withdrawalView(withdrawal))
      .catch((err) => deps.log.info({ err, withdrawalId: withdrawal.id }, 'cancel signal not delivered; the workflow will see the status'));
  });
}
