import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context, Next } from 'koa';
import { hotQuery } from '../../db/hot-query.js';
import { ApiError } from '../../http/errors.js';
import { RATE_LIMIT_TABLE, rateLimitError, setRateLimitHeaders, stateOf, type RateLimitState } from '../../http/rate-limit.js';
import { callerOf } from './auth.middleware.js';
import type { Business } from './business.entity.js';

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

// Both windows in one statement, as the library's PostgreSQL store keeps a fixed-window counter (expiry in
// epoch ms): the minute's counter is counted; the burst allowance's counter is counted only when the
// minute's points are spent, and read as it was before this statement otherwise. The same statement
// confirms the key is not revoked ($6), so a key served from the process's cache is refused the moment a
// revocation commits, on every instance, without waiting for the cache's notification: a revoked key
// counts nothing and the statement returns no row.
const CONSUME = `
  with main as (
    insert into ${RATE_LIMIT_TABLE} as r (key, points, expire)
    select $1, 1, $3::bigint + 60000
    where exists (select 1 from api_keys k where k.id = $6 and k.revoked_at is null)
    on conflict (key) do update set
      points = case when r.expire <= $3::bigint then 1 else r.points + 1 end,
      expire = case when r.expire <= $3::bigint then $3::bigint + 60000 else r.expire end
    returning points, expire),
  extra as (
    insert into ${RATE_LIMIT_TABLE} as r (key, points, expire)
    select $2, 1, $3::bigint + $5::bigint from main where main.points > $4::int
    on conflict (key) do update set
      points = case when r.expire <= $3::bigint then 1 else r.points + 1 end,
      expire = case when r.expire <= $3::bigint then $3::bigint + $5::bigint else r.expire end
    returning points, expire)
  select main.points as main_points, main.expire as main_expire,
    (select points from extra) as extra_points, (select expire from extra) as extra_expire,
    (select points from ${RATE_LIMIT_TABLE} where key = $2 and expire > $3::bigint) as extra_before
  from main`;

interface ConsumeRow {
  main_points: number;
  main_expire: string;
  extra_points: number | null;
  extra_expire: string | null;
  extra_before: number | null;
}

/**
 * The per-key limit: a fixed 60 s window of `perMinute` points and a fixed window of `burst − perMinute`
 * points that is drawn on only once the minute's points are spent (the counters of the library's
 * BurstyRateLimiter over PostgreSQL, `apikey:<key>` and `apikey-burst:<key>`), in one round trip: every
 * authenticated request pays for it. A prepared statement on the ORM's own `pg` pool (`hotQuery`).
 */
export function createKeyLimiter(orm: MikroORM) {
  /** The key's budget after this request, or null when the key is revoked (nothing is counted then). */
  return async function consume(keyId: string, budget: KeyBudget): Promise<RateLimitState | null> {
    const now = Date.now();
    const allowancePoints = budget.burst - budget.perMinute;
    const rows = await hotQuery<ConsumeRow>(orm.em, 'apikey-consume', CONSUME, [
      `apikey:${keyId}`,
      `apikey-burst:${keyId}`,
      now,
      budget.perMinute,
      BURST_WINDOW_SECONDS * 1000,
      keyId,
    ]);
    const row = rows[0];
    if (!row) return null;
    const mainPoints = Number(row.main_points);
    const msLeft = (expire: string | null) => (expire === null ? 0 : Math.max(Number(expire) - now, 0));
    const drewOnAllowance = mainPoints > budget.perMinute;
    const allowed = !drewOnAllowance || (allowancePoints > 0 && Number(row.extra_points) <= allowancePoints);
    const used = drewOnAllowance ? row.extra_points : row.extra_before;
    const allowanceLeft = allowancePoints > 0 ? Math.max(allowancePoints - Number(used ?? 0), 0) : 0;
    // Over the minute's points, the sooner of the two windows' ends (as the library's BurstyRateLimiter answers).
    const ms = drewOnAllowance ? Math.min(msLeft(row.main_expire), msLeft(row.extra_expire)) : msLeft(row.main_expire);
    // One policy for the key, as X-RateLimit-* show it: `burst` requests in a minute at most.
    return stateOf('apikey', 60, budget.burst, Math.max(budget.perMinute - mainPoints, 0) + allowanceLeft, ms, allowed);
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
    // Revoked since the key was read (or cached): refused as an unknown key is.
    if (!state) throw new ApiError('invalid_api_key');
    setRateLimitHeaders(ctx, state);
    if (!state.allowed) throw rateLimitError(state);
    await next();
  };
}
