/**
 * How long rows that grow with traffic are kept, by rule; the retention workflow applies each hourly
 * (workflows/retention.ts, src/modules/retention/retention.service.ts). Money records (sessions and their
 * items, refunds, withdrawals, reserves, the ledger, balances, the simulator's charges, disputes) have no
 * rule: they are kept for ever. docs/decisions.md, Retention, lists every table.
 */
import { workflowContract } from './workflows.js';

/** The hourly retention workflow (workflows/retention.ts): no input; it answers the rows each rule deleted. */
export const retentionWorkflowContract = workflowContract<() => Promise<Record<string, number>>>('retentionWorkflow');

export const RETENTION_RULES = [
  // An event, with its webhook deliveries and their attempts, 30 days after it happened (Stripe keeps
  // events 30 days); not while one of its deliveries is still being tried or its fan-out is not done.
  { name: 'events', keepDays: 30 },
  // An outbox row 7 days after it was dispatched: long enough to look into a dispatch, then it is history.
  { name: 'outbox', keepDays: 7 },
] as const;

export type RetentionRuleName = (typeof RETENTION_RULES)[number]['name'];

/** One batch of one rule: rows older than `before` (ISO 8601), at most a batch of them. */
export interface RetentionBatch {
  rule: RetentionRuleName;
  before: string;
}
