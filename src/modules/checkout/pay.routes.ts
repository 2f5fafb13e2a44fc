import type Router from '@koa/router';
import type { AppDeps } from '../../http/deps.js';
import { createRateLimiter, publicRateLimit, rateLimit } from '../../http/rate-limit.js';
import { paymentProcessor } from '../processor/index.js';
import { payCheckout } from './pay.service.js';

/** How long a pay call waits for the outcome before answering `processing`. */
export const PAY_WAIT_MS = 10_000;

/**
 * The one spelling of a session id, whatever spelling reached the route: PostgreSQL reads a UUID in upper
 * case, without hyphens or in braces as the same value, so the per-session limit is keyed on this form,
 * or a caller could rotate spellings for ten more tries each. Not a UUID: the raw text, bounded (the
 * counters' key column is 255 characters), which names no session anyway.
 */
export function canonicalSessionId(id: string): string {
  const hex = id.replace(/^\{|\}$/g, '').replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return id.slice(0, 64);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The hosted page's pay call. Public: no API key reaches the page, and the unguessable session id is
 * the capability. Limited to 10 calls a minute per session, which also bounds card-testing on one session,
 * and, with the hosted page and cancel, to PUBLIC_RATE_LIMIT_PER_MINUTE per client address.
 */
export function payRoutes(router: Router, deps: AppDeps): void {
  const processor = paymentProcessor({ env: deps.config.env, livePayments: deps.config.livePayments, log: deps.log });
  const limiter = createRateLimiter(deps.orm, { name: 'pay', points: 10, durationSeconds: 60 });
  const payDeps = { orm: deps.orm, temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue, processor, waitMs: PAY_WAIT_MS, livePayments: deps.config.livePayments };

  router.post(
    '/checkout/:id/pay',
    publicRateLimit(deps),
    rateLimit(limiter, (ctx) => canonicalSessionId(ctx.params.id)),
    async (ctx) => {
      ctx.body = { success: true, data: await payCheckout(payDeps, ctx.params.id, ctx.request.body ?? {}) };
    },
  );
}
