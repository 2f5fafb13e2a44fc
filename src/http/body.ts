import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { addressBudgetKey } from './client-address.js';
import { ApiError } from './errors.js';
import { intakeBudget, type BodyTicket, type IntakeLimits } from './intake-budget.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (`{}` for a request without one), set by `jsonBody` before any route runs. */
    body?: unknown;
    /** The body's text as it came, for a route that checks a signature over it (an acquirer's events). */
    bodyText?: string;
  }
}

/** The most a request body may be, and the deepest it may nest (objects and arrays; `{}` is depth 1). */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 32;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

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

/**
 * Only objects and arrays at the top. A `__proto__` key is valid JSON, and `JSON.parse` makes it an own
 * property like any other (never the object's prototype); the schemas then refuse it by name, as a field
 * they do not define (src/domain/unknown-fields.ts), or as a reserved metadata key. Refused here as
 * invalid JSON, it was a request the API document allowed answered as if it were not JSON at all.
 */
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*[[{]/;

/**
 * The body is parsed from text, so that its nesting is measured before `JSON.parse` spends any time on
 * it: a 1 MB body of `[` takes V8 most of a second to parse, and a deep value would later overflow the
 * stack of any recursive walk (the Idempotency-Key fingerprint, the text guard) and answer 500.
 */
function parseJson(text: string): unknown {
  if (text === '') return {};
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new ApiError('body_too_deep', { params: { max: MAX_JSON_DEPTH } });
  if (!STRICT_JSON.test(text)) throw new ApiError('invalid_json');
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json');
  }
}

/**
 * `ctx.is('application/json')`, with the spellings nearly every client sends answered without parsing the
 * header (type-is parses it anew for every request); anything else is left to type-is, unchanged.
 */
const COMMON_JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
const isJson = (ctx: Context) => COMMON_JSON_TYPES.has(ctx.get('Content-Type')) || Boolean(ctx.is('application/json'));

/** How the intake is bounded: the budgets (src/http/intake-budget.ts) and the body's deadlines. */
export interface IntakeOptions {
  limits: IntakeLimits;
  /** The longest a body may go without a byte (BODY_READ_TIMEOUT), as nginx's `client_body_timeout`. */
  readTimeoutMs: number;
  /** The longest a body may take in all, from its headers' arrival (BODY_TOTAL_TIMEOUT). */
  totalTimeoutMs: number;
}

/**
 * JSON bodies only, at most 1 MB and 32 levels deep, read before authentication, the Idempotency-Key and
 * any other work. A request that carries a body must say `application/json`; one with no body (a cancel,
 * a retry) is read as `{}`.
 *
 * The body is read here rather than by a body parser because each chunk is counted against the budgets
 * as it arrives and the read has a deadline; no parser offers a hook for either. Bytes stay counted until
 * the answer is written, since the parsed body lives as long as the request. A request refused while its
 * body is still arriving gets `Connection: close`, so the rest of it is never read.
 */
export function jsonBody(opts: IntakeOptions) {
  const budget = intakeBudget(opts.limits);
  const middleware = async function readJsonBody(ctx: Context, next: Next): Promise<void> {
    if (!BODY_METHODS.has(ctx.method)) return next();
    const declared = Number(ctx.get('Content-Length') || 0);
    if (!(declared > 0 || ctx.get('Transfer-Encoding'))) {
      ctx.request.body = {};
      return next();
    }
    try {
      if (!isJson(ctx)) throw new ApiError('unsupported_media_type');
      const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
      if (encoding && encoding !== 'identity') throw new ApiError('unsupported_content_encoding');
      if (declared > MAX_BODY_BYTES) throw new ApiError('body_too_large');
      const ticket = budget.open(addressBudgetKey(ctx.ip));
      if (typeof ticket === 'string') throw new ApiError('service_unavailable', { retryAfter: 1 });
      ctx.res.once('close', ticket.release);
      const text = await readText(ctx.req, ticket, opts).catch((err: unknown) => {
        ticket.release(); // back at once: a refused body holds nothing while its answer is written
        throw err;
      });
      ctx.request.bodyText = text;
      ctx.request.body = parseJson(text);
    } catch (err) {
      // The body was not read to its end: the connection cannot carry another request after this answer.
      if (!ctx.req.complete) ctx.res.shouldKeepAlive = false;
      throw err;
    }
    await next();
  };
  return Object.assign(middleware, { budget });
}

/**
 * The body as UTF-8 text, each chunk counted by `ticket` as it arrives. Two deadlines: no byte for
 * `readTimeoutMs` is a stalled client (each chunk restarts that clock, so a large body on a slow uplink
 * gets through), and `totalTimeoutMs` in all bounds one that trickles a byte at a time for ever.
 */
function readText(req: IncomingMessage, ticket: BodyTicket, deadlines: Pick<IntakeOptions, 'readTimeoutMs' | 'totalTimeoutMs'>): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const late = () => stop(new ApiError('request_timeout'));
    const total = setTimeout(late, deadlines.totalTimeoutMs);
    const idle = setTimeout(late, deadlines.readTimeoutMs);
    const onData = (chunk: Buffer) => {
      idle.refresh();
      received += chunk.length;
      if (received > MAX_BODY_BYTES) return stop(new ApiError('body_too_large'));
      if (ticket.take(chunk.length)) return stop(new ApiError('service_unavailable', { retryAfter: 1 }));
      chunks.push(chunk);
    };
    const onEnd = () => {
      ticket.finish();
      stop(null);
      resolve(Buffer.concat(chunks, received).toString('utf8'));
    };
    // The client went away (or the stream broke) before its body ended: nobody is left to read an answer.
    const onGone = () => stop(new ApiError('invalid_json'));
    function stop(err: ApiError | null) {
      clearTimeout(total);
      clearTimeout(idle);
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (!err) return;
      req.pause(); // unread bytes wait in the socket, and the connection closes after the answer
      chunks.length = 0;
      reject(err);
    }
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone);
  });
}
