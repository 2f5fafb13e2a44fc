/**
 * The withdrawal workflow's contract: its start input, the `cancelled` signal and the status query
 * (workflows/withdrawals.ts runs it).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { workflowContract } from './workflows.js';

/**
 * A withdrawal as its workflow holds it and its `status` query answers: the API's withdrawal resource
 * (`WithdrawalResource`, src/modules/withdrawals/withdrawal.schemas.ts), which the withdrawal's activities
 * return as this type, so the compiler checks each resource they return against it. Declared here, as
 * `RefundRecord` is: read off the activities' type, it closed a loop of types (module → contract →
 * activities → module).
 */
export interface WithdrawalRecord {
  id: string;
  amountInCents: number;
  status: 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
  destinationType: 'wallet' | 'crypto';
  /** The destination as JSON text. */
  destinationDetails: string;
  requestedAt: string;
  livemode: boolean;
  notes?: string;
  updatedAt: string;
  completedAt: string | null;
  cancelledAt?: string;
  processorTransactionId?: string;
  transactionHash?: string;
  failureReason?: string;
}

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
