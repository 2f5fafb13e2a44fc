import type Router from '@koa/router';
import { callerOf } from '../../http/auth.js';
import { conditionalGet } from '../../http/conditional-get.js';
import type { AppDeps } from '../../http/deps.js';
import { createRateLimiter, rateLimit } from '../../http/rate-limit.js';
import type { BalanceResource } from './balance.schemas.js';
import type { Balance } from './ledger.entity.js';
import { readBalance } from './ledger.service.js';

/**
 * The balance shape settled by the payments issue. Reserved and pending-withdrawal money sit in their
 * own accounts, so `availableInCents` never includes them. A business that has never moved money has
 * zeros and no `updatedAt`.
 */
export function balanceView(balance: Balance | null, livemode: boolean): BalanceResource {
  return {
    availableInCents: balance?.available ?? 0,
    reservedInCents: balance?.reserved ?? 0,
    pendingInCents: balance?.pendingWithdrawal ?? 0,
    currency: 'USD' as const,
    livemode,
    updatedAt: balance?.updatedAt.toISOString() ?? null,
  };
}

export function balanceRoutes(router: Router, deps: AppDeps): void {
  // The spec's per-operation limit, counted per API key.
  const limiter = createRateLimiter(deps.orm, { name: 'balance', points: 30, durationSeconds: 60 });

  router.get('/balance', rateLimit(limiter, (ctx) => callerOf(ctx).keyId), conditionalGet, async (ctx) => {
    const caller = callerOf(ctx);
    ctx.body = { success: true, data: balanceView(await readBalance(deps.orm.em.fork(), caller), caller.livemode) };
  });
}
