import type { Context, Next } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiKey, type ApiKeyScope } from '../modules/businesses/api-key.entity.js';
import { Business } from '../modules/businesses/business.entity.js';
import { hashApiKey, keyMode, sameHash } from '../modules/businesses/api-key-secret.js';
import { ApiError } from './errors.js';

/** Who is calling: every resource read or written belongs to this business and mode. */
export interface Caller {
  businessId: string;
  livemode: boolean;
  keyId: string;
  scope: ApiKeyScope;
  business: Business;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function authenticate(orm: MikroORM) {
  return async function auth(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('Authorization');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const secret = match?.[1];
    if (!secret || !keyMode(secret)) throw new ApiError('invalid_api_key');
    const hash = hashApiKey(secret);
    const em = orm.em.fork();
    const key = await em.findOne(ApiKey, { secretHash: hash, revokedAt: null });
    // The index lookup finds the row; the constant-time comparison is the actual check.
    if (!key || !sameHash(key.secretHash, hash)) throw new ApiError('invalid_api_key');
    const business = await em.findOneOrFail(Business, { id: key.businessId });
    const livemode = key.mode === 'live';
    if (livemode && !business.approved) throw new ApiError('business_not_approved');
    if (key.scope === 'read_only' && !READ_METHODS.has(ctx.method)) throw new ApiError('read_only_key');
    ctx.state.caller = { businessId: key.businessId, livemode, keyId: key.id, scope: key.scope, business } satisfies Caller;
    await next();
  };
}

export function callerOf(ctx: Context): Caller {
  return ctx.state.caller as Caller;
}
