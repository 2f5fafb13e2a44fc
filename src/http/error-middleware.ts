import type { Context, Next } from 'koa';
import { isUnavailable } from '../ops/unavailable.js';
import { ApiError, toApiError } from './errors.js';

/**
 * Registered first: every failure leaves through here in the spec's envelope. Unknown faults become a
 * bare 500 (logged once through `app.emit('error')`); no stack, SQL or secret reaches the client.
 */
export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    let apiError: ApiError;
    const known = toApiError(err);
    if (known) apiError = known;
    else if (isUnavailable(err)) {
      apiError = new ApiError('service_unavailable');
      ctx.app.emit('error', err, ctx);
    } else {
      apiError = new ApiError('internal');
      ctx.app.emit('error', err, ctx);
    }
    ctx.status = apiError.status;
    ctx.body = errorBody(apiError, ctx.state.requestId);
    if (apiError.details.retryAfter !== undefined) ctx.set('Retry-After', String(apiError.details.retryAfter));
  }
}

export function errorBody(error: ApiError, requestId: string) {
  return {
    success: false as const,
    error: {
      type: error.type,
      message: error.message,
      requestId,
      ...(error.details.errors ? { errors: error.details.errors } : {}),
      ...(error.details.retryAfter !== undefined ? { retryAfter: error.details.retryAfter } : {}),
    },
  };
}
