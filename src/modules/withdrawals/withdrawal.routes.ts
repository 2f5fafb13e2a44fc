import type Router from '@koa/router';
import { withdrawalCancelledSignal } from '../../../workflows/withdrawal.js';
import { callerOf } from '../../http/auth.js';
import type { AppDeps } from '../../http/deps.js';
import { parseBody, parseQuery } from '../../http/validate.js';
import { createWithdrawalInput, listWithdrawalsQuery } from './withdrawal.schemas.js';
import { cancelWithdrawal, createWithdrawal, findWithdrawal, listWithdrawals, withdrawalWorkflowId } from './withdrawal.service.js';
import { cancelledWithdrawalView, createdWithdrawalView, withdrawalListView, withdrawalView } from './withdrawal.view.js';

export function withdrawalRoutes(router: Router, deps: AppDeps): void {
  router.post('/withdrawals', async (ctx) => {
    const input = parseBody(ctx, createWithdrawalInput);
    const { withdrawal, outbox } = await createWithdrawal(deps.orm.em.fork(), callerOf(ctx), input, {
      processingDelayMs: deps.config.withdrawalProcessingDelayMs,
    });
    deps.afterCommit([outbox.id]);
    ctx.status = 201;
    ctx.body = { success: true, data: createdWithdrawalView(withdrawal) };
  });

  router.get('/withdrawals', async (ctx) => {
    const query = parseQuery(ctx, listWithdrawalsQuery);
    const { items, meta } = await listWithdrawals(deps.orm.em.fork(), callerOf(ctx), query);
    ctx.body = { success: true, data: { items: items.map(withdrawalListView), meta } };
  });

  router.get('/withdrawals/:id', async (ctx) => {
    const withdrawal = await findWithdrawal(deps.orm.em.fork(), callerOf(ctx), ctx.params.id);
    ctx.body = { success: true, data: withdrawalView(withdrawal) };
  });

  router.post('/withdrawals/:id/cancel', async (ctx) => {
    const withdrawal = await cancelWithdrawal(deps.orm.em.fork(), callerOf(ctx), ctx.params.id);
    // After the commit, so the workflow ends at once. If this is lost (a crash, a workflow not yet
    // started), the workflow's conditional move to processing finds `cancelled` and ends anyway.
    deps.temporal.workflow
      .getHandle(withdrawalWorkflowId(withdrawal.id))
      .signal(withdrawalCancelledSignal, withdrawalView(withdrawal))
      .catch((err) => deps.log.info({ err, withdrawalId: withdrawal.id }, 'cancel signal not delivered; the workflow will see the status'));
    ctx.body = { success: true, data: cancelledWithdrawalView(withdrawal) };
  });
}
