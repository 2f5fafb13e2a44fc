import type { AppDeps } from '../app-deps.js';
import { checkoutUrl, openChargeReferenceOf, type CheckoutSession } from '../checkout/index.js';
import type { CardStep } from './views/payment-form.js';

/**
 * The card form again, for a live session paid with Stripe.js that is `processing` with its PaymentIntent
 * opened but never tried: the pay's answer came without the intent's secret (the charge was opened after the
 * call's wait, on a busy worker or a slow acquirer), or the page was reloaded before the card was entered.
 * Without the secret the page had only "Payment in progress" to show, and the customer could do nothing but
 * wait for the session to expire: a sale lost. The page asks the acquirer for the secret of the session's
 * own recorded intent, only while nobody has tried to pay it and the session has not expired. Anything else
 * (no intent recorded yet, one tried or being settled, the acquirer out of reach) is the processing page,
 * which refreshes itself and asks again.
 */
export async function cardStepOf(deps: AppDeps, session: CheckoutSession, now: Date): Promise<CardStep | undefined> {
  // Past its expiry the session is the workflow's to end (the intent cancelled), whether or not it has yet.
  if (session.expiresAt.getTime() <= now.getTime()) return undefined;
  // A key closed by a lookup: the charge is being settled, and nothing may confirm it now.
  const reference = await openChargeReferenceOf(deps.orm.em.fork(), session.id);
  if (!reference || !deps.processor.browserChargeSecret) return undefined;
  try {
    const clientSecret = await deps.processor.browserChargeSecret({ idempotencyKey: session.id, livemode: session.livemode, reference });
    return clientSecret ? { clientSecret, returnUrl: checkoutUrl(deps.checkoutBaseUrl, session.id) } : undefined;
  } catch (err) {
    // The page still answers: the processing page, which asks again on its next refresh.
    deps.log.warn({ err, sessionId: session.id }, 'could not read the charge the card form would confirm');
    return undefined;
  }
}
