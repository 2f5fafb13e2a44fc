import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Middleware } from 'koa';
import helmet from 'koa-helmet';

/**
 * Origins one page response may use beyond its own: the item images' hosts, and the host of the
 * business's cancel URL (the Cancel form's redirect goes there, and browsers hold a form's redirects to
 * `form-action`). Keyed by the raw response so that helmet's per-request directive functions can read it.
 */
type PageSource = 'img' | 'formAction' | 'script' | 'frame' | 'connect';
const pageOrigins = new WeakMap<ServerResponse, Record<PageSource, Set<string>>>();
const noOrigins = (): Record<PageSource, Set<string>> => ({ img: new Set(), formAction: new Set(), script: new Set(), frame: new Set(), connect: new Set() });

/** Only a plain scheme://host[:port] can reach the header: a merchant URL cannot inject a directive. */
const SAFE_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

export function originOf(url: string | null | undefined): string | null {
  if (!url || !URL.canParse(url)) return null;
  const { origin } = new URL(url);
  return SAFE_ORIGIN.test(origin) ? origin : null;
}

export function allowOnPage(ctx: Context, kind: PageSource, urls: (string | null | undefined)[]): void {
  const entry = pageOrigins.get(ctx.res) ?? noOrigins();
  for (const url of urls) {
    const origin = originOf(url);
    if (origin) entry[kind].add(origin);
  }
  pageOrigins.set(ctx.res, entry);
}

/**
 * Stripe.js on a live page (and only there): its script, its frames (the Payment Element, and 3-D Secure's
 * challenge from hooks.stripe.com) and its calls to Stripe's API. `jsUrl` is Stripe's own in production
 * (src/config.ts refuses another); a stand-in elsewhere is allowed from its own origin, frames and calls too.
 */
export function allowStripeOnPage(ctx: Context, jsUrl: string): void {
  allowOnPage(ctx, 'script', [jsUrl]);
  allowOnPage(ctx, 'frame', [jsUrl, 'https://hooks.stripe.com']);
  allowOnPage(ctx, 'connect', ['https://api.stripe.com', jsUrl]);
}

/** `'self'` and the page's own origins of `kind`, with no trailing space when there are none. */
const selfAnd = (kind: PageSource) => (req: IncomingMessage, res: ServerResponse) => ["'self'", extra(kind)(req, res)].filter(Boolean).join(' ');

const extra = (kind: PageSource) => (_req: IncomingMessage, res: ServerResponse) =>
  [...(pageOrigins.get(res)?.[kind] ?? [])].join(' ');

/**
 * Strict headers for every page response: nothing loads but our own script and stylesheet (no inline
 * script or style), the page talks only to its own origin, cannot be framed, and sends no referrer (the
 * session id in the page URL is a capability and must not leak to image hosts).
 */
const helmetHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: [selfAnd('script')],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", extra('img')],
      connectSrc: [selfAnd('connect')],
      // Nothing framed but Stripe's own frames, on a live page (default-src alone would say the same otherwise).
      frameSrc: [(req: IncomingMessage, res: ServerResponse) => extra('frame')(req, res) || "'none'"],
      formAction: ["'self'", extra('formAction')],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      objectSrc: ["'none'"],
      upgradeInsecureRequests: [],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  xFrameOptions: { action: 'deny' },
});

/** Runs after the page is rendered, so that the policy can name that page's own image and cancel hosts. */
export const securityHeaders: Middleware = async (ctx, next) => {
  try {
    await next();
  } finally {
    await helmetHeaders(ctx, async () => {});
    ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  }
};
