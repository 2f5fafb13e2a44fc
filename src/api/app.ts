import Router from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import compose from 'koa-compose';
import { newRequestId } from '../domain/ids.js';
import { jsonBody } from '../http/body.js';
import { clientAddress, forwardedOf } from '../http/client-address.js';
import { errorMiddleware } from '../http/error-middleware.js';
import { ApiError } from '../http/errors.js';
import { registerOperations, type Operation } from '../http/operation.js';
import { storableIds } from '../http/text-guard.js';
import type { AppDeps } from '../modules/app-deps.js';
import {
  type ApiKeyCache,
  apiKeyRateLimits,
  authenticate,
  authorize,
  type KnownKey,
  createAuthFailures,
} from '../modules/businesses/index.js';
import { checkoutPages } from '../modules/checkout-page/index.js';
import { idempotencyKeys } from '../modules/idempotency/index.js';
import { httpRequestDuration, reportIntake } from '../ops/metrics.js';
import { apiDocumentRoutes } from './openapi/docs.routes.js';
import { apiRoutes, publicApiRoutes, type RouteModule } from './routes.js';
import { stripeEventRoutes } from '../modules/stripe/index.js';

/**
 * A known path with an unsupported method: the router answers 405 (501 for a method it does not know)
 * and sets `Allow`, and the middleware below turns that into the error envelope. Not the router's throw
 * option, which leaves `Allow` out (RFC 9110 requires it on a 405).
 */
const methodErrors = { throw: false };

/**
 * What the app is built from: the modules' deps, and the process's API key cache, which only
 * authentication reads (LISTEN/NOTIFY-invalidated; without one, every request reads its key).
 */
export interface ApiDeps extends AppDeps {
  apiKeys?: ApiKeyCache<KnownKey>;
}

export function createApp(deps: ApiDeps): Koa {
  // Not Koa's `proxy`, which believes anyone's X-Forwarded-For: clientAddress believes configured proxies only.
  const app = new Koa({ proxy: false });
  app.on('error', (err, ctx?: Context) => {
    deps.log.error({ err, requestId: ctx?.state?.requestId, path: ctx?.path }, 'request failed unexpectedly');
  });

  app.use(clientAddress(deps.config.http.trustedProxies));
  app.use(async (ctx: Context, next: Next) => {
    ctx.state.requestId = newRequestId();
    // On the response itself, as the rate-limit headers: ctx.set allocates per header, on every request.
    ctx.res.setHeader('X-Request-Id', ctx.state.requestId);
    ctx.res.setHeader('API-Version', 'v1');
    await next();
  });
  app.use(requestLog(deps));
  app.use(errorMiddleware);
  // Runs after routing: nothing answered, so the path is unknown, or the router's allowedMethods found it
  // with other methods (405 or 501, `Allow` set; it needs the 404 to reach it unthrown).
  app.use(async (ctx: Context, next: Next) => {
    await next();
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null) throw new ApiError('method_not_allowed');
    if (ctx.status === 404 && ctx.body == null) throw new ApiError('route_not_found');
  });
  app.use(requireHttps(deps));
  // Public hosted checkout pages (no API key; HTML, not JSON): everything under /checkout/.
  app.use(checkoutPages(deps));
  // The API document and its reference page (no API key).
  const docs = apiDocumentRoutes();
  app.use(docs.routes());
  app.use(docs.allowedMethods(methodErrors));
  const intake = jsonBody(deps.config.http.intake);
  reportIntake(intake.budget);
  app.use(intake);
  app.use(storableIds);
  // A real acquirer's events (Stripe's webhooks): signed by the acquirer, no API key, not in the API document.
  app.use(stripeEventRoutes(deps));

  // Public operations (no API key): the hosted page's pay call, whose session id is the capability.
  for (const prefix of ['/api', '/api/v1']) {
    const open = new Router({ prefix });
    register(open, publicApiRoutes, deps);
    app.use(open.routes());
    app.use(open.allowedMethods(methodErrors));
  }

  // Every operation that needs an API key, at `/api` and at the spec's intended `/api/v1`, with one count
  // of failed authentication for both.
  const perMinute = deps.config.http.authFailuresPerMinute;
  const authFailures = perMinute > 0 ? createAuthFailures(perMinute) : undefined;
  for (const prefix of ['/api', '/api/v1']) {
    const api = new Router({ prefix });
    // One router layer for the four: the router builds a closure, a capture and a params object per
    // matched layer per request, and these run on every authenticated request.
    api.use(compose([authenticate(deps.orm, deps.apiKeys, authFailures), apiKeyRateLimits(deps), authorize, idempotencyKeys(deps)]));
    register(api, apiRoutes, deps);
    app.use(api.routes());
    app.use(api.allowedMethods(methodErrors));
  }
  return app;
}

/** The route list's entries on one router, in its order. */
function register(router: Router, entries: ReadonlyArray<readonly Operation<AppDeps>[] | RouteModule>, deps: AppDeps): void {
  for (const entry of entries) {
    if (typeof entry === 'function') entry(router, deps);
    else registerOperations(router, entry, deps);
  }
}

function requestLog(deps: AppDeps) {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const caller = ctx.state.caller;
      const seconds = (performance.now() - started) / 1000;
      // The route template, not the path, so ids do not explode the label set; unrouted requests share one.
      const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched';
      httpRequestDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, seconds);
      // Not even the record is built when info is off (LOG_LEVEL=warn): this runs for every request.
      if (deps.log.isLevelEnabled('info')) deps.log.info(
        {
          requestId: ctx.state.requestId,
          businessId: caller?.businessId,
          livemode: caller?.livemode,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    }
  };
}

/**
 * Behind a TLS-terminating proxy (TRUST_PROXY), a request that did not arrive over HTTPS is refused. Only
 * a configured proxy (TRUSTED_PROXIES) can say it did; anyone else's X-Forwarded-Proto is ignored.
 */
function requireHttps(deps: AppDeps) {
  return async (ctx: Context, next: Next) => {
    if (deps.config.http.trustProxy) {
      // The proxy's word wins over the socket: what matters is how the client reached the proxy.
      const forwarded = forwardedOf(ctx).forwardedProto;
      const proto = forwarded || ((ctx.req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
      if (proto !== 'https') throw new ApiError('https_required');
    }
    await next();
  };
}
