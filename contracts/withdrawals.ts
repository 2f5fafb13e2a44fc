/**
 * The withdrawal workflow's contract: its start input, the `cancelled` signal and the status query
 * (workflows/withdrawals.ts runs it).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { WithdrawalActivities } from '../activities/withdrawals.js';
import { workflowContract } from './workflows.js';

export type WithdrawalRecord = Awaited<ReturnType<WithdrawalActivities['startWithdrawalProcessing']>>;

export interface WithdrawalWorkflowInput {
  withdrawalId: string;
  /** WITHDRAWAL_PROCESSING_DELAY when the withdrawal was made; in the input so every replay waits the same. */
  processingDelayMs: number;
  /** The record as created, so the `status` query answers from the first moment. */
  record: WithdrawalRecord;
}

/** Sent by the API after a cancel commits; carries the cancelled record, whose `id` the workflow checks is its own. */
export const withdrawalCancelledSignal = defineSignal<[record: WithdrawalRecord]>('cancelled');

export const withdrawalStatusQuery = defineQuery<WithdrawalRecord>('status');

export const withdrawalWorkflowContract = workflowContract<(input: WithdrawalWorkflowInput) => Promise<WithdrawalRecord['status']>>('withdrawalWorkflow');
