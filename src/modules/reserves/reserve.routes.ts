import type Router from '@koa/router';
import { callerOf } from '../../http/auth.js';
import { conditionalGet } from '../../http/conditional-get.js';
import type { AppDeps } from '../../http/deps.js';
import { parseQuery } from '../../http/validate.js';
import { findReserve, listReserves, listReservesQuery, reserveSummary } from './reserve.queries.js';
import { reserveConfigView } from './reserve.rules.js';
import { reserveView } from './reserve.view.js';

export function reserveRoutes(router: Router, deps: AppDeps): void {
  router.get('/reserves', async (ctx) => {
    const result = await listReserves(deps.orm.em.fork(), callerOf(ctx), parseQuery(ctx, listReservesQuery));
    ctx.body = { success: true, data: { items: result.items.map(reserveView), nextCursor: result.nextCursor } };
  });

  // Registered before `/reserves/:id`, which would otherwise read `summary` and `config` as ids.
  router.get('/reserves/summary', conditionalGet, async (ctx) => {
    ctx.body = { success: true, data: await reserveSummary(deps.orm.em.fork(), callerOf(ctx)) };
  });

  router.get('/reserves/config', conditionalGet, async (ctx) => {
    ctx.body = { success: true, data: reserveConfigView(callerOf(ctx).business) };
  });

  router.get('/reserves/:id', conditionalGet, async (ctx) => {
    ctx.body = { success: true, data: reserveView(await findReserve(deps.orm.em.fork(), callerOf(ctx), ctx.params.id)) };
  });
}
