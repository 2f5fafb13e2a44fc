import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { callerOf } from '../businesses/index.js';
import { ApiError } from '../../http/errors.js';
import { claimKey, leaseLeft, releaseKey, storeAnswer, type Scope } from './idempotency.store.js';
import { isValidIdempotencyKey, requestFingerprint, requestOperation } from './request-fingerprint.rules.js';

/** What a POST handler uses to answer; the same call whether or not the request carries a key. */
export interface IdempotentRequest {
  /**
   * Call inside the transaction that makes the request's effect, last: stores the answer in that same
   * transaction (when the request carries an `Idempotency-Key`) and makes it this request's response.
   * Throws, failing the transaction, if the key was taken over by a retry after the lease ran out.
   */
  complete(tx: EntityManager, status: number, body: unknown): Promise<void>;
  /**
   * Whether `complete` writes (the request carries a key): a handler whose effect is one statement
   * needs a transaction only then, to store the answer with the effect.
   */
  readonly storesAnswer: boolean;
}

interface Claim extends IdempotentRequest {
  scope: Scope;
  token: string;
  stored: boolean;
}

const plain: (ctx: Context) => IdempotentRequest = (ctx) => ({
  storesAnswer: false,
  async complete(_tx, status, body) {
    ctx.status = status;
    ctx.body = body;
  },
});

export function idempotency(ctx: Context): IdempotentRequest {
  return (ctx.state.idempotency as IdempotentRequest | undefined) ?? plain(ctx);
}

/**
 * After authentication, for every POST: claims the `Idempotency-Key` (or answers a repeat from the
 * store), runs the handler, and afterwards either keeps the stored answer or gives the key back.
 * Only successful answers are kept: an error made no effect, so the client may fix the request and
 * reuse the key (the spec: validation failures are not stored).
 */
export function idempotencyKeys(deps: { orm: MikroORM; log: Logger }) {
  return async function idempotencyKey(ctx: Context, next: Next): Promise<void> {
    if (ctx.method !== 'POST' || !('idempotency-key' in ctx.headers)) return next();
    const key = ctx.get('Idempotency-Key');
    if (!isValidIdempotencyKey(key)) {
      throw new ApiError('validation_failed', {
        errors: [{ path: ['Idempotency-Key'], message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' }],
      });
    }
    const caller = callerOf(ctx);
    const scope: Scope = { businessId: caller.businessId, livemode: caller.livemode, key };
    const operation = requestOperation(ctx.method, ctx.path);
    const result = await claimKey(deps.orm, scope, operation, requestFingerprint(operation, ctx.request.body));
    if (result.kind === 'mismatch') throw new ApiError('idempotency_key_reused');
    // Retry-After: when the claim runs out (a first attempt whose process died holds the key until then),
    // as a 503 says when to come back; a first attempt still alive has answered by then, and the retry replays it.
    if (result.kind === 'in_progress') throw new ApiError('idempotency_key_in_progress', { retryAfter: result.retryAfterSeconds });
    if (result.kind === 'replay') {
      ctx.status = result.status;
      ctx.type = 'application/json';
      ctx.body = result.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }

    const claim: Claim = {
      scope,
      token: result.token,
      stored: false,
      storesAnswer: true,
      async complete(tx, status, body) {
        if (!(await storeAnswer(tx, scope, result.token, status, JSON.stringify(body)))) {
          throw new ApiError('idempotency_key_in_progress', { retryAfter: await leaseLeft(tx, scope) });
        }
        claim.stored = true;
        ctx.status = status;
        ctx.body = body;
      },
    };
    ctx.state.idempotency = claim;
    try {
      await next();
    } catch (err) {
      await giveBack(deps, claim);
      throw err;
    }
    if (claim.stored) return;
    if (ctx.status >= 300 || !isJsonValue(ctx.body)) return giveBack(deps, claim);
    // A handler whose effect is not a database transaction of ours (a workflow signal, say) never called
    // complete(): its answer is stored now, after the fact. Its effect must be idempotent on its own.
    deps.log.debug({ path: ctx.path }, 'idempotent answer stored outside the effect transaction');
    await storeAnswer(deps.orm.em.fork(), scope, claim.token, ctx.status, JSON.stringify(ctx.body));
  };
}

async function giveBack(deps: { orm: MikroORM; log: Logger }, claim: Claim): Promise<void> {
  // If the effect did commit (the error came after it), the row is completed and this is a no-op.
  await releaseKey(deps.orm, claim.scope, claim.token).catch((err) =>
    deps.log.warn({ err }, 'could not release an idempotency key; it frees itself when its lease ends'),
  );
}

const isJsonValue = (body: unknown) =>
  body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
