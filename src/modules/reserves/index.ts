/**
 * What other code uses of the reserves module (rolling reserves, their release and summary): the rest is
 * the module's own, and eslint.config.js refuses an import of it from outside (docs/architecture.md, "A
 * module's face").
 */
export { reservesEntities } from './entities.js';
export { Reserve } from './reserve.entity.js';
export { releaseReserve } from './reserve.lifecycle.js';
export type { ReleaseOutcome } from './reserve.lifecycle.js';
export { reserveOperations } from './reserve.routes.js';
export { consumeReserves, createReserve, restoreReserves } from './reserve.service.js';
