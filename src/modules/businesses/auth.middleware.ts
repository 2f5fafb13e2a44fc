import type { Context, Next } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../http/errors.js';
import type { ApiKeyMode, ApiKeyScope } from './api-key.entity.js';
import { Business } from './business.entity.js';
import { hashApiKey, keyMode, sameHash } from './api-key.crypto.js';
import type { ApiKeyCache } from './api-key.cache.js';
import type { AuthFailures } from './auth-failures.middleware.js';
import type { Caller } from './caller.js';

interface KeyRow extends Record<string, unknown> {
  key_id: string;
  key_mode: ApiKeyMode;
  key_scope: ApiKeyScope;
  key_secret_hash: string;
}

const KEY_LOOKUP = `
  select k.id as key_id, k.mode as key_mode, k.scope as key_scope, k.secret_hash as key_secret_hash, b.*
  from api_keys k join businesses b on b.id = k.business_id
  where k.secret_hash = ? and k.revoked_at is null`;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A key that exists and is not revoked, with its business: what the key cache holds. */
export interface KnownKey {
  id: string;
  mode: ApiKeyMode;
  scope: ApiKeyScope;
  secretHash: string;
  business: Business;
}

/** One round trip for the key and its business. */
async function readKey(orm: MikroORM, hash: string): Promise<KnownKey | null> {
  const em = orm.em.fork();
  const [row] = await em.getConnection().execute<KeyRow[]>(KEY_LOOKUP, [hash]);
  if (!row) return null;
  const { key_id, key_mode, key_scope, key_secret_hash, ...businessColumns } = row;
  return { id: key_id, mode: key_mode, scope: key_scope, secretHash: key_secret_hash, business: em.map(Business, businessColumns) };
}

/**
 * The token of an `Authorization: Bearer <token>` header (the scheme in any letter case, RFC 9110), or
 * the refusal that says what is wrong with the header: none (or a scheme with no token) is "No API key",
 * another scheme (`Basic …`, or a key sent bare) "Authorization must use the Bearer scheme". Whether a
 * token names a key is decided after, with one answer for every wrong one.
 */
function bearerToken(header: string): string {
  const [scheme, ...rest] = header.trim().split(/\s+/);
  if (!scheme) throw new ApiError('api_key_missing');
  if (scheme.toLowerCase() !== 'bearer') throw new ApiError('authorization_not_bearer');
  if (rest.length === 0) throw new ApiError('api_key_missing');
  return rest.join(' ');
}

/**
 * Finds the caller's key, from the process's key cache when it has one (src/main/runtime.ts gives the
 * API one: LISTEN/NOTIFY-invalidated, and bypassed while its listener is down) or from the database.
 * With `failures`, an address that has spent its 401s is answered 429 instead, and looks nothing up.
 */
export function authenticate(orm: MikroORM, cache?: ApiKeyCache<KnownKey>, failures?: AuthFailures) {
  return async function auth(ctx: Context, next: Next): Promise<void> {
    try {
      ctx.state.caller = await identify(ctx, orm, cache, failures);
    } catch (err) {
      if (failures && err instanceof ApiError && err.status === 401) {
        failures.refuseIfSpent(ctx);
        failures.count(ctx);
      }
      throw err;
    }
    await next();
  };
}

/** The caller a request's key names, or the 401 that says why there is none. */
async function identify(ctx: Context, orm: MikroORM, cache?: ApiKeyCache<KnownKey>, failures?: AuthFailures): Promise<Caller> {
  const secret = bearerToken(ctx.get('Authorization'));
  if (!keyMode(secret)) throw new ApiError('invalid_api_key');
  const hash = hashApiKey(secret);
  const read = () => {
    failures?.refuseIfSpent(ctx);
    return readKey(orm, hash);
  };
  // A live key of a business not yet approved is not cached, so its approval works at the next request;
  // a revocation is caught by the rate-limit statement that follows (api-key-rate-limit.middleware.ts).
  const key = cache ? await cache.get(hash, read, usable) : await read();
  // The index lookup (or the cache) finds the row; the constant-time comparison is the actual check.
  if (!key || !sameHash(key.secretHash, hash)) throw new ApiError('invalid_api_key');
  const { business } = key;
  return { businessId: business.id, livemode: key.mode === 'live', keyId: key.id, scope: key.scope, business } satisfies Caller;
}

/**
 * What the key may do, after the rate-limit statement has confirmed it is not revoked (a revoked key is
 * 401 whatever it could do before): a live key needs an approved business, a read-only key a read.
 */
export async function authorize(ctx: Context, next: Next): Promise<void> {
  const caller = callerOf(ctx);
  if (caller.livemode && !caller.business.approved) throw new ApiError('business_not_approved');
  if (caller.scope === 'read_only' && !READ_METHODS.has(ctx.method)) throw new ApiError('read_only_key');
  await next();
}

/** Whether a key would be let through as it stands: only such keys are cached. */
const usable = (key: KnownKey) => key.mode !== 'live' || key.business.approved;

export function callerOf(ctx: Context): Caller {
  return ctx.state.caller as Caller;
}
