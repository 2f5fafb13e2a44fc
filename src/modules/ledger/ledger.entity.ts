import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from '../businesses/index.js';
import type { Account } from './accounts.rules.js';

/**
 * One row per business and mode: the lock every money move takes (`SELECT … FOR UPDATE`) and the cached
 * sums of that business's entries, which `ledger verify` recomputes from the entries.
 */
export const Balance = defineEntity({
  name: 'Balance',
  tableName: 'balances',
  properties: {
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id').primary(),
    livemode: p.boolean().primary(),
    available: p.bigint('number'),
    reserved: p.bigint('number'),
    pendingWithdrawal: p.bigint('number'),
    refundsInFlight: p.bigint('number'),
    updatedAt: p.datetime(),
  },
});
export type Balance = InferEntity<typeof Balance>;

/** Append-only: rows are inserted, never updated or deleted. */
export const LedgerTransaction = defineEntity({
  name: 'LedgerTransaction',
  tableName: 'ledger_transactions',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    livemode: p.boolean(),
    /** What moved the money (`payment`, `refund.created`, …); with `referenceId`, unique. */
    kind: p.string(),
    referenceId: p.string(),
    createdAt: p.datetime(),
  },
});
export type LedgerTransaction = InferEntity<typeof LedgerTransaction>;

export const LedgerEntry = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entries',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    transactionId: () => p.manyToOne(LedgerTransaction).mapToPk().fieldName('transaction_id'),
    businessId: p.string(),
    livemode: p.boolean(),
    account: p.string().$type<Account>(),
    amount: p.bigint('number'),
  },
});
export type LedgerEntry = InferEntity<typeof LedgerEntry>;
