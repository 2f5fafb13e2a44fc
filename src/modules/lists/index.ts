/**
 * What other code uses of the lists module (keyset pages and the row counts the list operations show): the
 * rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export { pageIds } from './page.queries.js';
export type { Filter } from './page.queries.js';
export { startRowCountFolder } from './row-count.folder.js';
export { cappedTotal, countedTotal, rowCounts } from './row-count.queries.js';
