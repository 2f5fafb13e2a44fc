import type { AppDeps } from '../app-deps.js';
import { CheckoutSession, confirmsInBrowser, paymentIntentChangedMessage } from '../checkout/index.js';
import { claimForFastPath, OutboxEntry } from '../outbox/index.js';

/**
 * The customer back at the page's `return_url` from Stripe (after 3-D Secure, or after a confirmation
 * that needed none): the session's checkout workflow is told to read its PaymentIntent now, rather than
 * wait for Stripe's event. Nothing in the query is believed (a customer can type any `redirect_status`):
 * it only prompts the read, and the workflow reads the intent the service recorded, not the one named.
 * Through the outbox, so the nudge outlives this request. Answers whether the session was nudged.
 */
export async function returnFromAcquirer(deps: AppDeps, sessionId: string): Promise<boolean> {
  const em = deps.orm.em.fork();
  const session = await em.findOne(CheckoutSession, { id: sessionId }, { fields: ['status', 'livemode'] });
  if (!session || session.status !== 'processing' || !confirmsInBrowser(deps.config.livePayments, session)) return false;
  const entry = await em.transactional(async (tx) => claimForFastPath(tx.create(OutboxEntry, { message: paymentIntentChangedMessage(sessionId) })));
  deps.afterCommit([entry]);
  return true;
}
