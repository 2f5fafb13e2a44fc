/**
 * What other code uses of the ledger module (balances, accounts, postings, the in-flight money and the
 * ledger's verification): the rest is the module's own, and eslint.config.js refuses an import of it from
 * outside (docs/architecture.md, "A module's face").
 */
export { lines, transfer } from './accounts.rules.js';
export type { PostingLine } from './accounts.rules.js';
export { balanceOperations } from './balance.routes.js';
export { ledgerEntities } from './entities.js';
export { finishInFlight, startInFlight } from './in-flight.lifecycle.js';
export { verifyLedger } from './ledger-verify.service.js';
export type { Balance } from './ledger.entity.js';
export { lockBalance, lockBalanceRow, ownerOf, postingStatement, postTransaction, readBalance } from './ledger.service.js';
export type { Owner, Posting } from './ledger.service.js';
