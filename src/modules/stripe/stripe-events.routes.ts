import Router from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import Stripe from 'stripe';
import type { AppDeps } from '../app-deps.js';
import { ApiError } from '../../http/errors.js';
import { DomainError } from '../../domain/errors.js';
import { createStripeClient } from './stripe.client.js';
import { receiveStripeEvent } from './stripe-events.service.js';
import { stripeEventShape } from './stripe-events.schemas.js';
import { parse } from '../../domain/validation.js';

/** Where Stripe delivers this service's events: the URL registered as the account's webhook endpoint (docs/acquirer.md). */
export const STRIPE_EVENTS_PATH = '/acquirer/stripe/webhook';

/** How far an event's signed timestamp may be from now: Stripe's library default, and the spec's own for receivers. */
const TOLERANCE_SECONDS = 300;

/**
 * The acquirer endpoint: Stripe's events, each checked with the `stripe` library's own signature check
 * against STRIPE_WEBHOOK_SECRET before anything is read from it. A body that does not verify (no header,
 * another secret, a byte changed, a timestamp more than 300 s away: a replay of an old delivery) is 400
 * `validation_error` and records nothing. Not part of the API document: its caller is Stripe, with no API
 * key. Without ACQUIRER=stripe the path does not exist (404). The module is the whole route, registered
 * with one line in the app.
 */
export function stripeEventRoutes(deps: AppDeps): Middleware {
  const router = new Router();
  const acquirer = deps.config.acquirer;
  const stripe = acquirer ? createStripeClient(acquirer) : null;
  router.post(STRIPE_EVENTS_PATH, async (ctx) => {
    if (!stripe || !acquirer) throw new ApiError('route_not_found');
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(ctx.request.bodyText ?? '', ctx.get('Stripe-Signature'), acquirer.webhookSecret, TOLERANCE_SECONDS);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError || err instanceof SyntaxError) throw new DomainError('acquirer_event_unverified');
      throw err;
    }
    parse(stripeEventShape, event);
    const received = await deps.orm.em.fork().transactional((tx) => receiveStripeEvent(tx, event, { log: deps.log, disputes: deps.config.disputes }));
    deps.afterCommit(received.outbox);
    ctx.body = { success: true, data: { eventId: event.id, outcome: received.outcome, disputeId: received.disputeId } };
  });
  // Another method on the path answers 405 with `Allow`, as the API's routes do (src/api/app.ts).
  return compose([router.routes(), router.allowedMethods({ throw: false })]) as Middleware;
}
