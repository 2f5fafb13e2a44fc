import Router from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import Stripe from 'stripe';
import type { AppDeps } from '../app-deps.js';
import { ApiError } from '../../http/errors.js';
import { DomainError } from '../../domain/errors.js';
import { createStripeClient } from './stripe.client.js';
import { receiveStripeEvent, reportStripeEvent } from './stripe-events.service.js';
import { stripeEventShape } from './stripe-events.schemas.js';
import { parse } from '../../domain/validation.js';
import { metrics } from '../../ops/metrics.js';
import { headerProblemOf, signedTimestampOf, timestampProblemOf, type UnverifiedReason } from './stripe-signature.rules.js';

/** Where Stripe delivers this service's events: the URL registered as the account's webhook endpoint (docs/acquirer.md). */
export const STRIPE_EVENTS_PATH = '/acquirer/stripe/webhook';

/**
 * The acquirer endpoint: Stripe's events, each checked with the `stripe` library's own signature check
 * against STRIPE_WEBHOOK_SECRET before anything is read from it. A body that does not verify (no header,
 * another secret, a byte changed, a signed timestamp more than 300 s from now either way: a replay of an
 * old delivery, or one dated ahead to outlive its window) is 400 `validation_error`, records nothing, and
 * is counted and logged by reason, so a wrong secret or a skewed clock shows at once. Not part of the API document: its caller is Stripe, with no API
 * key. Without ACQUIRER=stripe the path does not exist (404). The module is the whole route, registered
 * with one line in the app.
 */
export function stripeEventRoutes(deps: AppDeps): Middleware {
  const router = new Router();
  const acquirer = deps.config.acquirer;
  const stripe = acquirer ? createStripeClient(acquirer) : null;
  router.post(STRIPE_EVENTS_PATH, async (ctx) => {
    if (!stripe || !acquirer) throw new ApiError('route_not_found');
    const verified = verify(stripe, ctx.request.bodyText ?? '', ctx.get('Stripe-Signature'), acquirer.webhookSecret);
    if ('reason' in verified) {
      metrics.acquirerEventUnverified('stripe', verified.reason);
      deps.log.warn({ acquirer: 'stripe', reason: verified.reason }, `Stripe delivery refused: ${verified.reason}`);
      throw new DomainError('acquirer_event_unverified');
    }
    const { event } = verified;
    parse(stripeEventShape, event);
    const received = await deps.orm.em.fork().transactional((tx) => receiveStripeEvent(tx, event, { disputes: deps.config.disputes }));
    deps.afterCommit(received.outbox);
    reportStripeEvent(event, deps.log, received);
    ctx.body = { success: true, data: { eventId: event.id, outcome: received.outcome, disputeId: received.disputeId } };
  });
  // Another method on the path answers 405 with `Allow`, as the API's routes do (src/api/app.ts).
  return compose([router.routes(), router.allowedMethods({ throw: false })]) as Middleware;
}

/**
 * The library checks the signature alone (tolerance 0 turns its one-way age check off); the signed time is
 * then held to the tolerance both ways here (stripe-signature.rules.ts), after the signature, so a forged
 * time reads as forged.
 */
function verify(stripe: Stripe, body: string, header: string, secret: string): { event: Stripe.Event } | { reason: UnverifiedReason } {
  const problem = headerProblemOf(header);
  if (problem) return { reason: problem };
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(body, header, secret, 0);
  } catch (err) {
    if (err instanceof SyntaxError) return { reason: 'body_not_json' };
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) return { reason: 'signature_mismatch' };
    throw err;
  }
  const late = timestampProblemOf(signedTimestampOf(header)!, Math.floor(Date.now() / 1000));
  return late ? { reason: late } : { event };
}
