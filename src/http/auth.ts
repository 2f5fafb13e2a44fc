import type { Context, Next } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ApiKeyMode, ApiKeyScope } from '../modules/businesses/api-key.entity.js';
import { Business } from '../modules/businesses/business.entity.js';
import { hashApiKey, keyMode, sameHash } from '../modules/businesses/api-key.crypto.js';
import type { Caller } from '../modules/businesses/caller.js';
import { ApiError } from './errors.js';

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

export function authenticate(orm: MikroORM) {
  return async function auth(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('Authorization');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const secret = match?.[1];
    if (!secret || !keyMode(secret)) throw new ApiError('invalid_api_key');
    const hash = hashApiKey(secret);
    const em = orm.em.fork();
    // One round trip for the key and its business: every authenticated request pays for this lookup.
    const [row] = await em.getConnection().execute<KeyRow[]>(KEY_LOOKUP, [hash]);
    // The index lookup finds the row; the constant-time comparison is the actual check.
    if (!row || !sameHash(row.key_secret_hash, hash)) throw new ApiError('invalid_api_key');
    const { key_id, key_mode, key_scope, key_secret_hash: _, ...businessColumns } = row;
    const key = { id: key_id, mode: key_mode, scope: key_scope, businessId: businessColumns.id as string };
    const business = em.map(Business, businessColumns);
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
