import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Middleware } from 'koa';
import helmet from 'koa-helmet';

/**
 * Origins one page response may use beyond its own: the item images' hosts, and the host of the
 * business's cancel URL (the Cancel form's redirect goes there, and browsers hold a form's redirects to
 * `form-action`). Keyed by the raw response so that helmet's per-request directive functions can read it.
 */
const pageOrigins = new WeakMap<ServerResponse, { img: Set<string>; formAction: Set<string> }>();

/** Only a plain scheme://host[:port] can reach the header: a merchant URL cannot inject a directive. */
const SAFE_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

export function originOf(url: string | null | undefined): string | null {
  if (!url || !URL.canParse(url)) return null;
  const { origin } = new URL(url);
  return SAFE_ORIGIN.test(origin) ? origin : null;
}

export function allowOnPage(ctx: Context, kind: 'img' | 'formAction', urls: (string | null | undefined)[]): void {
  const entry = pageOrigins.get(ctx.res) ?? { img: new Set<string>(), formAction: new Set<string>() };
  for (const url of urls) {
    const origin = originOf(url);
    if (origin) entry[kind].add(origin);
  }
  pageOrigins.set(ctx.res, entry);
}

const extra = (kind: 'img' | 'formAction') => (_req: IncomingMessage, res: ServerResponse) =>
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
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", extra('img')],
      connectSrc: ["'self'"],
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
