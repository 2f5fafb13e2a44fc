/**
 * The refund workflow's contract: its start input and status query (workflows/refunds.ts runs it).
 */
import { defineQuery } from '@temporalio/workflow';
import type { RefundActivities } from '../activities/refunds.js';
import { workflowContract } from './workflows.js';

export type RefundRecord = Awaited<ReturnType<RefundActivities['startRefundProcessing']>>;

export interface RefundWorkflowInput {
  refundId: string;
  /** The refund as created, so the `status` query answers from the first moment. */
  record: RefundRecord;
}

export const refundStatusQuery = defineQuery<RefundRecord>('status');

export const refundWorkflowContract = workflowContract<(input: RefundWorkflowInput) => Promise<RefundRecord['status']>>('refundWorkflow');
