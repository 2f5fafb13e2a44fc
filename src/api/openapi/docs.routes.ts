import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import type { Context } from 'koa';
import helmet from 'koa-helmet';
import { apiDocument } from './document.js';

/**
 * The API document at `/api/openapi.json` (and `/api/v1/openapi.json`), and a reference page at `/docs`
 * rendered by Redoc's standalone bundle, served from the installed package: no CDN, no API key.
 */

const require = createRequire(import.meta.url);
const REDOC_BUNDLE = require.resolve('redoc/bundles/redoc.standalone.js');

interface StaticFile {
  type: string;
  body: Buffer;
  etag: string;
}

const file = (type: string, body: Buffer | string): StaticFile => {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return { type, body: buffer, etag: `"${createHash('sha256').update(buffer).digest('base64url').slice(0, 22)}"` };
};

// Redoc reads its options from the element's attributes, so the page needs no inline script.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payments API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<redoc spec-url="/api/openapi.json" expand-responses="200,201" required-props-first="true" sort-required-props-first="true" path-in-middle-panel="true"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`;

/**
 * Redoc's bundle styles itself with injected `<style>` elements (styled-components) and runs its search
 * index in a worker made from a blob; everything else is our own origin. No inline script.
 */
const docsHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      workerSrc: ["'self'", 'blob:'],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      objectSrc: ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  xFrameOptions: { action: 'deny' },
});

function send(ctx: Context, asset: StaticFile): void {
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.etag = asset.etag;
  ctx.type = asset.type;
  ctx.status = 200;
  if (ctx.fresh) ctx.status = 304;
  else ctx.body = asset.body;
}

export function apiDocumentRoutes(): Router {
  // Built on first use: the document is generated once per process, the bundle read once.
  let documentFile: StaticFile | undefined;
  let bundle: StaticFile | undefined;
  const page = file('text/html; charset=utf-8', PAGE);
  const router = new Router();

  for (const path of ['/api/openapi.json', '/api/v1/openapi.json']) {
    router.get(path, (ctx) => {
      documentFile ??= file('application/json; charset=utf-8', JSON.stringify(apiDocument()));
      // Readable by a reference page or a client generator on another origin: it holds nothing secret.
      ctx.set('Access-Control-Allow-Origin', '*');
      send(ctx, documentFile);
    });
  }
  router.get('/docs', async (ctx) => {
    send(ctx, page);
    await docsHeaders(ctx, async () => {});
  });
  router.get('/docs/redoc.standalone.js', (ctx) => {
    bundle ??= file('text/javascript; charset=utf-8', readFileSync(REDOC_BUNDLE));
    send(ctx, bundle);
  });
  return router;
}
