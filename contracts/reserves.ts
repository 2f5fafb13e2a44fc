/**
 * The reserve release workflow's contract: its start input and state query (workflows/reserves.ts runs it).
 */
import { defineQuery } from '@temporalio/workflow';
import { workflowContract } from './workflows.js';

export interface ReserveReleaseInput {
  reserveId: string;
  /** ISO 8601: the end of the hold period. */
  releaseAt: string;
}

export type ReserveReleaseState = 'holding' | 'released' | 'nothing_to_release';
export const reserveReleaseStateQuery = defineQuery<ReserveReleaseState>('status');

export const reserveReleaseWorkflowContract = workflowContract<(input: ReserveReleaseInput) => Promise<ReserveReleaseState>>('reserveReleaseWorkflow');
