import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';

/**
 * Conditional reads (RFC 9110 §8.8.3 ETag, §13.1.2 If-None-Match) for the GETs that answer one
 * resource. After the handler, a 200 JSON answer gets a strong `ETag`: a hash of the exact bytes Koa
 * sends (`JSON.stringify` of the body), so the tag changes exactly when the representation does. A
 * request whose `If-None-Match` matches it (weak comparison, as §13.1.2 requires; `*` matches any
 * current representation) is answered 304 with no body, keeping the ETag and the rate-limit headers.
 *
 * Not koa-etag + koa-conditional-get: together they are this file over Koa's `ctx.fresh`, and
 * `ctx.fresh` (the `fresh` package) ignores If-None-Match whenever the request says
 * `Cache-Control: no-cache`, a cache's rule (RFC 9111) that an origin server must not apply: the
 * server evaluates the precondition (RFC 9110 §13.2.1). Errors, lists and non-GET methods pass
 * through untouched.
 */
export async function conditionalGet(ctx: Context, next: Next): Promise<void> {
  await next();
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200 || !isJsonObject(ctx.body)) return;
  const tag = entityTag(JSON.stringify(ctx.body));
  ctx.set('ETag', tag);
  if (noneMatchFails(ctx.get('If-None-Match'), tag)) {
    ctx.status = 304; // first, so the empty body below does not become a 204
    ctx.body = null;
  }
}

/** A strong entity tag for a representation: the first 128 bits of its SHA-256, base64url. */
export const entityTag = (representation: string): string =>
  `"${createHash('sha256').update(representation).digest('base64url').slice(0, 22)}"`;

/**
 * Whether `If-None-Match: <header>` is false for a representation tagged `tag`, i.e. the client's copy
 * is current and the answer is 304. Weak comparison: `W/"x"` matches `"x"`. Members that are not
 * entity tags are ignored; an absent or empty header never matches.
 */
export function noneMatchFails(header: string, tag: string): boolean {
  const value = header.trim();
  if (value === '*') return true;
  const opaque = (t: string) => t.replace(/^W\//, '');
  // An entity tag's characters may include commas, so the list is read tag by tag, not split on commas.
  for (const [member] of value.matchAll(/(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/g)) {
    if (opaque(member) === opaque(tag)) return true;
  }
  return false;
}

const isJsonObject = (body: unknown) =>
  body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
