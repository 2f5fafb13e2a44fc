import { bodyParser } from '@koa/bodyparser';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';

/** The most a request body may be, and the deepest it may nest (objects and arrays; `{}` is depth 1). */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 32;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads the body as text (the Content-Type was checked to be JSON first), so that its nesting is
 * measured before `JSON.parse` spends any time on it: a 1 MB body of `[` takes V8 most of a second to
 * parse, and a deep value would later overflow the stack of any recursive walk (the Idempotency-Key
 * fingerprint, the text guard) and answer 500.
 */
const reader = bodyParser({
  enableTypes: ['text'],
  extendTypes: { text: ['application/json'] },
  textLimit: MAX_BODY_BYTES,
  encoding: 'utf-8',
  onError: (err) => {
    const { status, type } = err as { status?: number; type?: string };
    throw new ApiError(status === 413 || type === 'entity.too.large' ? 'body_too_large' : 'invalid_json');
  },
});

/** Whether JSON text nests objects and arrays deeper than `limit`: one pass, brackets inside strings ignored. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped, whatever it is
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Only objects and arrays at the top, as before; `__proto__` keys are refused rather than kept. */
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*[[{]/;
const noProtoKeys = (key: string, value: unknown) => {
  if (key === '__proto__') throw new SyntaxError('__proto__ is not allowed as a key');
  return value;
};

function parseJson(text: string): unknown {
  if (text === '') return {};
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new ApiError('body_too_deep', { params: { max: MAX_JSON_DEPTH } });
  if (!STRICT_JSON.test(text)) throw new ApiError('invalid_json');
  try {
    // A reviver takes JSON.parse off its fast path (it doubles the parse on the busiest request), so it
    // runs only on text that could spell the key: literally, or through a \u escape.
    return text.includes('__proto__') || text.includes('\\u') ? JSON.parse(text, noProtoKeys) : JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json');
  }
}

/**
 * The body bytes all requests of this process hold at once. Each request reserves its declared length (a
 * chunked one, the 1 MB it may reach) before a byte is read, and gives it back when its answer is sent
 * or its connection closes. Past the budget the request is refused with 503 and Retry-After: a flood of
 * large bodies (before authentication, so anyone's) gets a clear answer instead of growing the heap
 * until the process dies, which is what lets the API run with a capped heap (README, NODE_OPTIONS).
 */
export function bodyBudget(limitBytes: number) {
  let held = 0;
  return {
    /** The bytes reserved for this request, or null when they do not fit now. */
    reserve(bytes: number): { release: () => void } | null {
      if (held + bytes > limitBytes) return null;
      held += bytes;
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          held -= bytes;
        },
      };
    },
    held: () => held,
  };
}

/**
 * JSON bodies only, at most 1 MB and 32 levels deep, checked before authentication, the
 * Idempotency-Key and any other work. A request that carries a body must say `application/json`; one
 * with no body (a cancel, a retry) is read as `{}`.
 */
export function jsonBody(bytesInFlight: number) {
  const budget = bodyBudget(bytesInFlight);
  return async function readJsonBody(ctx: Context, next: Next): Promise<void> {
    if (!BODY_METHODS.has(ctx.method)) return next();
    const declared = Number(ctx.get('Content-Length') || 0);
    const chunked = Boolean(ctx.get('Transfer-Encoding'));
    if (!(declared > 0 || chunked)) {
      ctx.request.body = {};
      return next();
    }
    if (!ctx.is('application/json')) throw new ApiError('unsupported_media_type');
    if (declared > MAX_BODY_BYTES) throw new ApiError('body_too_large');
    const reservation = budget.reserve(chunked ? MAX_BODY_BYTES : declared);
    if (!reservation) throw new ApiError('service_unavailable', { retryAfter: 1 });
    // Held until the answer is written (or the client goes away): the parsed body lives as long as the request.
    ctx.res.once('close', reservation.release);
    await reader(ctx, async () => {
      // The reader leaves a DELETE's body unread, as the JSON parser before it did.
      if (typeof ctx.request.body === 'string') ctx.request.body = parseJson(ctx.request.body);
      await next();
    });
  };
}
