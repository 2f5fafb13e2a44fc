import { bodyParser } from '@koa/bodyparser';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const parser = bodyParser({
  enableTypes: ['json'],
  jsonLimit: '1mb',
  jsonStrict: true,
  encoding: 'utf-8',
  onError: (err) => {
    const { status, type } = err as { status?: number; type?: string };
    throw new ApiError(status === 413 || type === 'entity.too.large' ? 'body_too_large' : 'invalid_json');
  },
});

/**
 * JSON bodies only, at most 1 MB. A request that carries a body must say `application/json`; one with no
 * body (a cancel, a retry) is read as `{}`.
 */
export async function jsonBody(ctx: Context, next: Next): Promise<void> {
  if (!BODY_METHODS.has(ctx.method)) return next();
  const hasBody = Number(ctx.get('Content-Length') || 0) > 0 || Boolean(ctx.get('Transfer-Encoding'));
  if (!hasBody) {
    ctx.request.body = {};
    return next();
  }
  if (!ctx.is('application/json')) throw new ApiError('unsupported_media_type');
  if (Number(ctx.get('Content-Length') || 0) > 1024 * 1024) throw new ApiError('body_too_large');
  await parser(ctx, next);
}
