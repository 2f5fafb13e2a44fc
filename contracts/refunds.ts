/**
 * The refund workflow's contract: its start input and status query (workflows/refunds.ts runs it).
 */
import { defineQuery } from '@temporalio/workflow';
import { workflowContract } from './workflows.js';

/**
 * A refund as its workflow holds it and its `status` query answers: the API's refund resource
 * (`RefundResource`, src/modules/refunds/refund.schemas.ts), which the refund's activities return as
 * this type, so the compiler checks each resource they return against it. Declared here rather than read
 * off the activities' type: the refunds module starts the workflow by this contract, and a contract typed
 * by the activities, which import the module, closed a loop of types (module → contract → activities →
 * module) as soon as the activities took the module through its face.
 */
export interface RefundRecord {
  id: string;
  checkoutSessionId: string;
  amountInCents: number;
  reason: string | null;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  livemode: boolean;
  createdAt: string;
  requestedAt: string;
  completedAt?: string;
  failureReason?: string;
}

export interface RefundWorkflowInput {
  refundId: string;
  /** The refund as created, so the `status` query answers from the first moment. */
  record: RefundRecord;
}

export const refundStatusQuery = defineQuery<RefundRecord>('status');

export const refundWorkflowContract = workflowContract<(input: RefundWorkflowInput) => Promise<RefundRecord['status']>>('refundWorkflow');
