import type Router from '@koa/router';
import type { AppDeps } from '../../http/deps.js';
import { createRateLimiter, rateLimit } from '../../http/rate-limit.js';
import { paymentProcessor } from '../processor/index.js';
import { payCheckout } from './pay.service.js';

/** How long a pay call waits for the outcome before answering `processing`. */
export const PAY_WAIT_MS = 10_000;

/**
 * The hosted page's pay call. Public: no API key reaches the page, and the unguessable session id is
 * the capability. Limited to 10 calls a minute per session, which also bounds card-testing on one session.
 */
export function payRoutes(router: Router, deps: AppDeps): void {
  const processor = paymentProcessor({ env: deps.config.env, log: deps.log });
  const limiter = createRateLimiter(deps.orm, { name: 'pay', points: 10, durationSeconds: 60 });
  const payDeps = { orm: deps.orm, temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue, processor, waitMs: PAY_WAIT_MS };

  router.post(
    '/checkout/:id/pay',
    // Keys are bounded in length (the counters' key column is 255 characters); longer ids are unknown anyway.
    rateLimit(limiter, (ctx) => ctx.params.id.slice(0, 64)),
    async (ctx) => {
      ctx.body = { success: true, data: await payCheckout(payDeps, ctx.params.id, ctx.request.body ?? {}) };
    },
  );
}
