/**
 * What other code uses of the hosted checkout pages module (HTML, not part of the API document): the rest
 * is the module's own, and eslint.config.js refuses an import of it from outside (docs/architecture.md, "A
 * module's face").
 */
export { checkoutPages } from './page.routes.js';
