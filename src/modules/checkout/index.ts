/**
 * What other code uses of the checkout module (sessions, the pay call, payments and their lifecycle): the
 * rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export { cancelSession } from './cancel-session.service.js';
export { chargeReferenceOf, closeChargeKey, openChargeReferenceOf, recordChargeReference, sessionOfChargeReference } from './charge-reference.lifecycle.js';
export { ISO_COUNTRY_CODES } from './countries.rules.js';
export { checkoutEntities } from './entities.js';
export { expireSession, sweepExpiredSessions } from './expiry.rules.js';
export { loadCheckout } from './load-checkout.queries.js';
export type { CheckoutForPage } from './load-checkout.queries.js';
export { payOperations } from './pay.routes.js';
export { confirmsInBrowser } from './pay.service.js';
export { paymentIntentChangedMessage } from './payment.start.js';
export { checkoutEventPayloads } from './pay.schemas.js';
export { beginPayment, chargeRequestOf, failPayment, paymentInDoubt } from './payment.lifecycle.js';
export { completePayment, paymentToComplete } from './payment-completion.js';
export type { PaymentToComplete } from './payment-completion.js';
export { handOverPaymentsInDoubt, nextInDoubtCheckAt } from './payments-in-doubt.lifecycle.js';
export { paymentRedirectUrl, withSessionId } from './redirect.rules.js';
export { CheckoutSession } from './session.entity.js';
export type { SessionItem } from './session.entity.js';
export { sessionExample } from './session.examples.js';
export { sessionOperations } from './session.routes.js';
export { createSessionInput } from './session.schemas.js';
export { createSession } from './session.service.js';
export { checkoutUrl, sessionView } from './session.view.js';
export { sessionTotals } from './totals.rules.js';
