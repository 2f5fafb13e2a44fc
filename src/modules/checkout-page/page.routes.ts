import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import type { AppDeps } from '../app-deps.js';
import { ApiError, toApiError } from '../../http/errors.js';
import { isUnavailable } from '../../ops/unavailable.js';
import { publicRateLimit } from '../../http/rate-limit.js';
import { cancelSession, confirmsInBrowser, loadCheckout, withSessionId } from '../checkout/index.js';
import { serveAsset } from './assets.routes.js';
import { allowOnPage, allowStripeOnPage, securityHeaders } from './security-headers.middleware.js';
import { returnFromAcquirer } from './acquirer-return.service.js';
import { cardStepOf } from './card-step.service.js';
import { checkoutPage, messagePage } from './views/state-pages.js';

/** The hosted checkout pages live under this path of the checkout origin; nothing else does. */
const isPagePath = (path: string) => path === '/checkout' || path.startsWith('/checkout/');

function sendHtml(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'html';
  // A page shows a session's live state (and takes card details): never cached, by browser or proxy.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

const sendMessage = (ctx: Context, status: 404 | 405 | 429 | 500 | 503) => sendHtml(ctx, status, messagePage(status));

/** A page answers HTML for every failure; the JSON envelope is for the API only. */
async function pageErrors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    // PostgreSQL or Temporal out of reach is a 503 the customer may retry, as the API's errorMiddleware
    // says it (the seeded fault run found a cancel from the page answered 500 while PostgreSQL restarted).
    const known = toApiError(err);
    if (!known) ctx.app.emit('error', err, ctx);
    const apiError = known ?? (isUnavailable(err) ? new ApiError('service_unavailable') : undefined);
    const status = apiError && [404, 405, 429, 503].includes(apiError.status) ? apiError.status : 500;
    if (apiError?.details.retryAfter !== undefined) ctx.set('Retry-After', String(apiError.details.retryAfter));
    sendMessage(ctx, status as 404 | 405 | 429 | 500 | 503);
  }
}

/** Wraps routing: a path that no page route answered (404), or only with another method (405). */
async function unmatched(ctx: Context, next: Next): Promise<void> {
  await next();
  if (ctx.body == null && ctx.status !== 304 && ctx.status !== 303) sendMessage(ctx, ctx.status === 405 ? 405 : 404);
}

/**
 * The public hosted checkout: no API key, the unguessable session id is the capability. Mounted as one
 * middleware that takes every `/checkout/...` request and passes anything else on to the API.
 */
export function checkoutPages(deps: AppDeps): Middleware {
  const router = new Router();
  // The page and its cancel share the pay call's per-address budget; the static assets do not count.
  const limit = publicRateLimit(deps);

  router.get('/checkout/assets/:name', (ctx) => {
    if (!serveAsset(ctx, ctx.params.name)) sendMessage(ctx, 404);
  });

  router.get('/checkout/:id', limit, async (ctx) => {
    const view = await loadCheckout(deps.orm.em.fork(), ctx.params.id);
    if (!view) return sendMessage(ctx, 404);
    // Back from Stripe (`return_url`, after 3-D Secure): the workflow reads the intent now; the page is
    // shown again without the query, which carries the intent's client secret.
    if (ctx.query.payment_intent !== undefined) {
      await returnFromAcquirer(deps, view.session.id);
      ctx.status = 303;
      ctx.set('Cache-Control', 'no-store');
      return ctx.redirect(`/checkout/${view.session.id}`);
    }
    // Live mode with Stripe: the card is entered in Stripe.js's frames, never in this page's own inputs.
    const stripe = deps.config.acquirer && confirmsInBrowser(deps.config.livePayments, view.session) ? deps.config.acquirer : null;
    const now = new Date();
    const cardStep = stripe && view.session.status === 'processing' ? await cardStepOf(deps, view.session, now) : undefined;
    const { state, body } = checkoutPage(view, now, stripe ? { publishableKey: stripe.publishableKey, jsUrl: stripe.stripeJsUrl, cardStep } : undefined);
    allowOnPage(ctx, 'img', view.items.map((item) => item.imageUrl));
    if (state === 'payable') allowOnPage(ctx, 'formAction', [view.session.cancelUrl]);
    if ((state === 'payable' || cardStep) && stripe) allowStripeOnPage(ctx, stripe.stripeJsUrl);
    sendHtml(ctx, 200, body);
  });

  // A plain form post, so Cancel works without script. Post/redirect/get: the business's cancel URL once
  // the session is cancelled, otherwise the page itself, which then shows the session's true state.
  router.post('/checkout/:id/cancel', limit, async (ctx) => {
    const result = await cancelSession({ em: deps.orm.em.fork(), temporal: deps.temporal, log: deps.log }, ctx.params.id);
    if (!result) return sendMessage(ctx, 404);
    const { session } = result;
    ctx.status = 303;
    ctx.redirect(
      session.status === 'cancelled' && session.cancelUrl
        ? withSessionId(session.cancelUrl, session.id)
        : `/checkout/${session.id}`,
    );
    ctx.set('Cache-Control', 'no-store');
  });

  const pages = compose<Context>([securityHeaders, pageErrors, unmatched, router.routes() as Middleware, router.allowedMethods() as Middleware]);
  return (ctx, next) => (isPagePath(ctx.path) ? pages(ctx, async () => {}) : next());
}
