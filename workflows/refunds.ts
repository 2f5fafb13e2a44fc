import { patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { RefundActivities } from '../activities/refunds.js';
import { REFUND_DECLINED } from '../contracts/failure-types.js';
import { refundStatusQuery, type RefundRecord, type RefundWorkflowInput } from '../contracts/refunds.js';
import { databaseStepOptions, operatorView, processorCallOptions, processorCalls } from './in-flight.js';

const remoteSteps = proxyActivities<RefundActivities>(databaseStepOptions);
/**
 * The same transitions as local activities: run by the worker that runs the workflow, inside its workflow
 * task, and recorded as one marker each, instead of a round trip through the server's task queue and
 * three events. As durable: a local activity that has not recorded its marker runs again, and each
 * transition is conditional on the refund's status. `patched('local-database-steps')` (below).
 */
const localSteps = proxyLocalActivities<RefundActivities>(databaseStepOptions);

const { refundOnProcessor } = proxyActivities<RefundActivities>(processorCallOptions);

/**
 * One per refund (`refund-ref_…`): `pending` → `processing` → the processor's refund → `completed` or
 * `failed`. The money already sits in `refunds_in_flight`; the last step moves it on (to processor
 * clearing) or back (to available). Every step is conditional on the refund's status in the database.
 */
export async function refundWorkflow(input: RefundWorkflowInput): Promise<RefundRecord['status']> {
  const id = input.refundId;
  let record = input.record;
  const operator = operatorView();
  const processor = processorCalls(operator);
  setHandler(refundStatusQuery, () => record);
  // Runs started before this patch scheduled the three transitions as activities and replay that way.
  const { startRefundProcessing, completeRefund, failRefund } = patched('local-database-steps') ? localSteps : remoteSteps;

  operator.step('Moving to processing');
  record = await startRefundProcessing(id);
  if (record.status === 'processing') {
    operator.status('processing');
    const outcome = await processor.call('Refunding on the processor', REFUND_DECLINED, () => refundOnProcessor(id));
    operator.step(outcome.ok ? 'Recording the refund' : 'Recording the failed refund');
    record = outcome.ok ? await completeRefund(id, outcome.value) : await failRefund(id, outcome.reason);
  }
  operator.status(record.status);
  operator.step(`Done: ${record.status}${record.failureReason ? ` (${record.failureReason})` : ''}`);
  return record.status;
}
