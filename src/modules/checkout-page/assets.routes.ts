import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context } from 'koa';

/**
 * The page's own static files, read once at start-up. Only these names are served (no file-system path
 * is ever built from a request), each with its type and an ETag so that browsers revalidate cheaply.
 */
const FILES = {
  'checkout.css': 'text/css; charset=utf-8',
  'checkout.js': 'text/javascript; charset=utf-8',
  'stripe-checkout.js': 'text/javascript; charset=utf-8',
  'card-checks.js': 'text/javascript; charset=utf-8',
  'pay-request.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
} as const;

interface Asset {
  type: string;
  body: Buffer;
  etag: string;
}

const assets = new Map<string, Asset>(
  Object.entries(FILES).map(([name, type]) => {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    return [name, { type, body, etag }];
  }),
);

/** Answers the asset and returns true, or returns false for a name that is not one of ours. */
export function serveAsset(ctx: Context, name: string): boolean {
  const asset = assets.get(name);
  if (!asset) return false;
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.etag = asset.etag;
  ctx.type = asset.type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return true;
  }
  ctx.body = asset.body;
  return true;
}
