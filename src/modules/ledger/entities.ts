import { Balance, LedgerTransaction, LedgerEntry } from './ledger.entity.js';

/** This module's MikroORM entities, for the composition root (src/main/database.ts) to register. */
export const ledgerEntities = [Balance, LedgerTransaction, LedgerEntry];
