import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context, Next } from 'koa';
import rateLimiterFlexible from 'rate-limiter-flexible';
import type { Business } from '../modules/businesses/business.entity.js';
import { callerOf } from './auth.js';
import { postgresLimiter, rateLimitError, setRateLimitHeaders, stateOf, type RateLimitState } from './rate-limit.js';

// A CommonJS package: its named exports are read off the default export under native ESM.
const { BurstyRateLimiter, RateLimiterRes } = rateLimiterFlexible;

export interface KeyBudget {
  /** Requests per minute, sustained. */
  perMinute: number;
  /** Most requests in one minute, drawing on the burst allowance. */
  burst: number;
}

/** The spec's table A (the issue settles the conflict with table B this way). */
export const TIER_BUDGETS: Record<'standard' | 'growth', KeyBudget> = {
  standard: { perMinute: 60, burst: 120 },
  growth: { perMinute: 300, burst: 600 },
};

/**
 * How often the burst allowance (burst − perMinute requests) refills. Ten minutes keeps a key's
 * long-run average near its per-minute rate (at most rate + allowance / 10 per minute) while letting a
 * short spike through.
 */
export const BURST_WINDOW_SECONDS = 600;

/** A business's budget per API key, from its tier; an enterprise business without custom figures gets growth's. */
export function keyBudget(business: Pick<Business, 'rateLimitTier' | 'rateLimitPerMinute' | 'rateLimitBurst'>): KeyBudget {
  if (business.rateLimitTier !== 'enterprise') return TIER_BUDGETS[business.rateLimitTier];
  const perMinute = business.rateLimitPerMinute ?? TIER_BUDGETS.growth.perMinute;
  const burst = Math.max(perMinute, business.rateLimitBurst ?? perMinute * 2);
  return { perMinute, burst };
}

/**
 * The per-key limit: the library's BurstyRateLimiter over two PostgreSQL counters, a fixed 60 s window
 * of `perMinute` points and a fixed window of `burst − perMinute` points that is drawn on only once the
 * minute's points are spent. Limiters are made once per distinct budget.
 */
export function createKeyLimiter(orm: MikroORM) {
  const limiters = new Map<string, ReturnType<typeof makeLimiters>>();
  const makeLimiters = (budget: KeyBudget) => ({
    main: postgresLimiter(orm, { name: 'apikey', points: budget.perMinute, durationSeconds: 60 }),
    extra: postgresLimiter(orm, {
      name: 'apikey-burst',
      points: Math.max(1, budget.burst - budget.perMinute),
      durationSeconds: BURST_WINDOW_SECONDS,
    }),
  });

  return async function consume(keyId: string, budget: KeyBudget): Promise<RateLimitState> {
    const id = `${budget.perMinute}/${budget.burst}`;
    if (!limiters.has(id)) limiters.set(id, makeLimiters(budget));
    const { main, extra } = limiters.get(id)!;
    const [mainLimiter, extraLimiter] = await Promise.all([main(), extra()]);
    // The bursty result reports the minute's points only; what is left of the allowance is read apart,
    // beside the consume rather than after it: a call the minute's points cover leaves the allowance as is.
    const hasAllowance = budget.burst > budget.perMinute;
    const allowanceBefore = hasAllowance ? extraLimiter.get(keyId) : Promise.resolve(null);
    let res: InstanceType<typeof RateLimiterRes>;
    let allowed = true;
    try {
      res = await new BurstyRateLimiter(mainLimiter, extraLimiter).consume(keyId);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res = err;
      allowed = false;
    }
    const before = await allowanceBefore;
    const drewOnAllowance = !allowed || res.consumedPoints > budget.perMinute;
    const allowance = drewOnAllowance && hasAllowance ? await extraLimiter.get(keyId) : before;
    const extraLeft = hasAllowance ? (allowance?.remainingPoints ?? extraLimiter.points) : 0;
    // One policy for the key, as X-RateLimit-* show it: `burst` requests in a minute at most.
    return stateOf('apikey', 60, budget.burst, res.remainingPoints + extraLeft, res.msBeforeNext, allowed);
  };
}

/**
 * After authentication: counts the request against its API key's budget, sets the `X-RateLimit-*`
 * headers and answers 429 over the limit. A per-operation limit further in (the balance's 30 per
 * minute, in its route) sets its own, tighter figures over these. Errors and Idempotency-Key replays
 * count too: they are requests the service answered.
 */
export function apiKeyRateLimits(deps: { orm: MikroORM }) {
  const perKey = createKeyLimiter(deps.orm);
  return async function rateLimitPerKey(ctx: Context, next: Next): Promise<void> {
    const caller = callerOf(ctx);
    const state = await perKey(caller.keyId, keyBudget(caller.business));
    setRateLimitHeaders(ctx, state);
    if (!state.allowed) throw rateLimitError(state);
    await next();
  };
}
