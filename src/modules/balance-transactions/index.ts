/**
 * What other code uses of the balance transactions module (the ledger's postings as the API lists and
 * exports them): the rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export { balanceTransactionsCsv } from './balance-transaction.csv.js';
export { exportBalanceTransactions } from './balance-transaction.queries.js';
export { balanceTransactionOperations } from './balance-transaction.routes.js';
