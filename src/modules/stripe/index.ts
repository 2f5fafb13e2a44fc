/**
 * What other code uses of the Stripe connector (Stripe's processor, its events, its evidence limits): the
 * rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export { checkStripeKey, stripeKeyReadiness } from './stripe-access.js';
export { stripeEventRoutes } from './stripe-events.routes.js';
export { stripeEvidenceProblems } from './stripe-evidence.rules.js';
export { createStripeClient } from './stripe.client.js';
export { createStripeProcessor } from './stripe.processor.js';
