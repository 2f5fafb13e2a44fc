import type Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import { callerOf } from '../../http/auth.js';
import { conditionalGet } from '../../http/conditional-get.js';
import { idempotency } from '../../http/idempotency.js';
import { parseBody } from '../../http/validate.js';
import type { AppDeps } from '../../http/deps.js';
import { createSessionInput } from './session.schemas.js';
import { createSession, findSession, listSessions } from './session.service.js';
import { sessionListView, sessionView } from './session.view.js';

export function sessionRoutes(router: Router, deps: AppDeps): void {

  router.post('/checkout/sessions', async (ctx) => {
    const input = parseBody(ctx, createSessionInput);
    const answer = idempotency(ctx);
    const create = async (em: EntityManager) => {
      const { session, items } = await createSession(em, callerOf(ctx), input, { sessionTtlMs: deps.config.sessionTtlMs });
      await answer.complete(em, 201, { success: true, data: sessionView(session, items, deps.checkoutBaseUrl) });
    };
    // The create is one statement, atomic alone; a stored answer must commit with it.
    const em = deps.orm.em.fork();
    await (answer.storesAnswer ? em.transactional(create) : create(em));
  });

  router.get('/checkout/sessions', async (ctx) => {
    const result = await listSessions(deps.orm.em.fork(), callerOf(ctx), ctx.query);
    ctx.body = {
      success: true,
      data: {
        items: result.items.map((s) => sessionListView(s, deps.checkoutBaseUrl)),
        meta: result.meta,
        nextCursor: result.nextCursor,
      },
    };
  });

  router.get('/checkout/sessions/:id', conditionalGet, async (ctx) => {
    const { session, items } = await findSession(deps.orm.em.fork(), callerOf(ctx), ctx.params.id);
    ctx.body = { success: true, data: sessionView(session, items, deps.checkoutBaseUrl) };
  });
}
