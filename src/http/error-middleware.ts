import type { Context, Next } from 'koa';
import { ApiError, toApiError } from './errors.js';

/** Socket errors of a dependency that went away or cannot be reached. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * PostgreSQL's SQLSTATEs for "not now": class 08 (connection exception), a server shutting down or
 * starting up (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now) and 53300
 * too_many_connections. A restart produces all of these within a second, depending on where each
 * request was.
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

const UNAVAILABLE_MESSAGE =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error|TransportError/;

/**
 * PostgreSQL or Temporal being unreachable, shutting down or restarting is a clean 503, not a 500. The
 * driver's error may sit one or two `cause`s deep under the ORM's.
 */
export function isUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 2) return false;
  const { code, name, message, cause } = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
  return (
    (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) ||
    name === 'ServiceError' ||
    name === 'ConnectionException' ||
    (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) ||
    isUnavailable(cause, depth + 1)
  );
}

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
