import type Router from '@koa/router';
import { callerOf } from '../../http/auth.js';
import { conditionalGet } from '../../http/conditional-get.js';
import type { AppDeps } from '../../http/deps.js';
import { parseQuery } from '../../http/validate.js';
import { findBalanceTransaction, listBalanceTransactions } from './balance-transaction.queries.js';
import { listBalanceTransactionsQuery } from './balance-transaction.schemas.js';

/**
 * Every cent of the balance explained. Registered before any `/balance/:x` route, and without the
 * balance's own 30-a-minute limit: a merchant reconciling pages through many of these, and each page is
 * one indexed read (the key's general limit still applies).
 */
export function balanceTransactionRoutes(router: Router, deps: AppDeps): void {
  router.get('/balance/transactions', async (ctx) => {
    const query = parseQuery(ctx, listBalanceTransactionsQuery);
    ctx.body = { success: true, data: await listBalanceTransactions(deps.orm.em.fork(), callerOf(ctx), query) };
  });

  router.get('/balance/transactions/:id', conditionalGet, async (ctx) => {
    ctx.body = { success: true, data: await findBalanceTransaction(deps.orm.em.fork(), callerOf(ctx), ctx.params.id) };
  });
}
