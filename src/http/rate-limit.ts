import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context, Next } from 'koa';
import rateLimiterFlexible from 'rate-limiter-flexible';
import { ApiError } from './errors.js';
import { addressBudgetKey } from './client-address.js';

// A CommonJS package: its named exports are read off the default export under native ESM.
const { RateLimiterPostgres, RateLimiterRes } = rateLimiterFlexible;

/** The counters live in PostgreSQL (created by a migration), so every API instance shares one budget. */
export const RATE_LIMIT_TABLE = 'rate_limit_counters';

export interface RateLimitRule {
  /** Distinguishes this limit's counters from every other limit's (`pay`, `key`, `balance`, …). */
  name: string;
  /** Calls allowed per window. */
  points: number;
  /** Window length in seconds (fixed window, starting at the first call). */
  durationSeconds: number;
}

/** What one call left of the budget: the spec's `X-RateLimit-*` figures and the IETF draft's `RateLimit*`. */
export interface RateLimitState {
  /** The policy's name in `RateLimit-Policy` and `RateLimit` (the rule's name: `apikey`, `pay`, `balance`, `public`). */
  policy: string;
  /** The policy's window in seconds (`w`). */
  windowSeconds: number;
  limit: number;
  remaining: number;
  /** Unix time (seconds) at which the window resets. */
  resetAt: number;
  /** Whole seconds until then (`t`); equal to `retryAfter` on a refusal. */
  resetInSeconds: number;
  /** Whole seconds until the next call may succeed; 0 when this one was allowed. */
  retryAfter: number;
  allowed: boolean;
}

export interface RateLimiter {
  readonly rule: RateLimitRule;
  /** Counts one call against `key` (a session id, an API key id, …) and says whether it is allowed. */
  consume(key: string, points?: number): Promise<RateLimitState>;
}

/** The library's PostgreSQL limiter for one rule, over the ORM's pool, made on first use. */
export function postgresLimiter(orm: MikroORM, rule: RateLimitRule): () => Promise<InstanceType<typeof RateLimiterPostgres>> {
  let limiter: Promise<InstanceType<typeof RateLimiterPostgres>> | undefined;
  return () =>
    (limiter ??= orm.em
      .getConnection()
      .getNativeClient()
      .then(
        (pool) =>
          new RateLimiterPostgres({
            storeClient: pool,
            storeType: 'pool',
            tableName: RATE_LIMIT_TABLE,
            tableCreated: true,
            keyPrefix: rule.name,
            points: rule.points,
            duration: rule.durationSeconds,
          }),
      ));
}

/**
 * A limiter over the ORM's own `pg` pool. The pool is read lazily because MikroORM connects on first use;
 * every limiter shares the one counters table, keyed `<name>:<key>`.
 */
export function createRateLimiter(orm: MikroORM, rule: RateLimitRule): RateLimiter {
  const store = postgresLimiter(orm, rule);

  return {
    rule,
    async consume(key, points = 1) {
      let res: InstanceType<typeof RateLimiterRes>;
      let allowed = true;
      try {
        res = await (await store()).consume(key, points);
      } catch (err) {
        // Over the limit is a RateLimiterRes; anything else (the database is down) is a real fault.
        if (!(err instanceof RateLimiterRes)) throw err;
        res = err;
        allowed = false;
      }
      return stateOf(rule.name, rule.durationSeconds, rule.points, res.remainingPoints, res.msBeforeNext, allowed);
    },
  };
}

/** The figures of one call, from what the limiter answered. */
export function stateOf(policy: string, windowSeconds: number, limit: number, remaining: number, msBeforeNext: number, allowed: boolean): RateLimitState {
  const ms = Math.max(0, msBeforeNext);
  const retryAfter = allowed ? 0 : Math.max(1, Math.ceil(ms / 1000));
  return {
    policy,
    windowSeconds,
    limit,
    remaining: allowed ? remaining : 0,
    resetAt: Math.ceil((Date.now() + ms) / 1000),
    resetInSeconds: allowed ? Math.ceil(ms / 1000) : retryAfter,
    retryAfter,
    allowed,
  };
}

/**
 * Sets the spec's `X-RateLimit-*` headers for a call's state and, beside them with the same figures, the
 * IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11): `RateLimit-Policy` names the
 * policy with its quota `q` (= X-RateLimit-Limit) and window `w`; `RateLimit` gives what is left, `r`
 * (= X-RateLimit-Remaining), and `t`, the seconds until X-RateLimit-Reset (= Retry-After on a 429, as
 * the draft asks: Retry-After never points before the end of the effective window). A later, tighter
 * limit (the balance's) replaces all five, so they always describe one policy.
 */
export function setRateLimitHeaders(ctx: Context, state: RateLimitState): void {
  // On the response itself: Koa's ctx.set builds four arrays and a closure per header, and every
  // authenticated request sets these five before any answer is written.
  const { res } = ctx;
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remaining));
  res.setHeader('X-RateLimit-Reset', String(state.resetAt));
  res.setHeader('RateLimit-Policy', `"${state.policy}";q=${state.limit};w=${state.windowSeconds}`);
  res.setHeader('RateLimit', `"${state.policy}";r=${state.remaining};t=${state.resetInSeconds}`);
}

/** The spec's 429: `rate_limit_exceeded`, `retryAfter` in the body and a `Retry-After` header. */
export function rateLimitError(state: RateLimitState): ApiError {
  return new ApiError('rate_limit_exceeded', { params: { seconds: state.retryAfter }, retryAfter: state.retryAfter });
}

/**
 * Koa middleware: counts the call against the key `keyOf(ctx)` returns (no key: not limited), sets the
 * headers, and answers 429 over the limit. Headers set here survive the error middleware.
 */
export function rateLimit(limiter: RateLimiter, keyOf: (ctx: Context) => string | null | undefined) {
  return async function limit(ctx: Context, next: Next): Promise<void> {
    const key = keyOf(ctx);
    if (!key) return next();
    const state = await limiter.consume(key);
    setRateLimitHeaders(ctx, state);
    if (!state.allowed) throw rateLimitError(state);
    await next();
  };
}

/**
 * The public routes' limit (hosted page, pay, cancel; no API key to count against): one budget per
 * client address over all of them together, PUBLIC_RATE_LIMIT_PER_MINUTE a minute, shared by every API
 * process through the counters table. The address is `ctx.ip`, which believes X-Forwarded-For only from
 * TRUSTED_PROXIES, counted by its IPv6 /64 (`addressBudgetKey`). With the setting at 0 it lets everything through.
 */
export function publicRateLimit(deps: { orm: MikroORM; config: { http: { publicRateLimitPerMinute: number } } }) {
  const perMinute = deps.config.http.publicRateLimitPerMinute;
  if (perMinute === 0) return (_ctx: Context, next: Next) => next();
  const limiter = createRateLimiter(deps.orm, { name: 'public', points: perMinute, durationSeconds: 60 });
  return rateLimit(limiter, (ctx) => addressBudgetKey(ctx.ip));
}
