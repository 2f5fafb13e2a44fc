import { condition, defineQuery, defineSignal, patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { WithdrawalActivities } from '../activities/withdrawals.js';
import { PAYOUT_DECLINED } from '../contracts/failure-types.js';
import { databaseStepOptions, operatorView, processorCallOptions, processorCalls, formatWait } from './in-flight.js';

export type WithdrawalRecord = Awaited<ReturnType<WithdrawalActivities['startWithdrawalProcessing']>>;

export interface WithdrawalWorkflowInput {
  withdrawalId: string;
  /** WITHDRAWAL_PROCESSING_DELAY when the withdrawal was made; in the input so every replay waits the same. */
  processingDelayMs: number;
  /** The record as created, so the `status` query answers from the first moment. */
  record: WithdrawalRecord;
}

/** Sent by the API after a cancel commits; carries the cancelled record. */
export const withdrawalCancelledSignal = defineSignal<[record: WithdrawalRecord]>('cancelled');
export const withdrawalStatusQuery = defineQuery<WithdrawalRecord>('status');

const remoteSteps = proxyActivities<WithdrawalActivities>(databaseStepOptions);
// As local activities: one marker each inside the workflow task, no task-queue round trip (workflows/refunds.ts says why that is as durable).
const localSteps = proxyLocalActivities<WithdrawalActivities>(databaseStepOptions);

const { payWithdrawal } = proxyActivities<WithdrawalActivities>(processorCallOptions);

/**
 * One per withdrawal (`withdrawal-wd_…`): `pending` for the processing delay, during which the merchant
 * may cancel; then `processing` and the payout; then `completed` or `failed`. The database holds the
 * truth: the move to `processing` is conditional, so a cancel that committed first wins and this ends.
 */
export async function withdrawalWorkflow(input: WithdrawalWorkflowInput): Promise<WithdrawalRecord['status']> {
  const id = input.withdrawalId;
  let record = input.record;
  let cancelled = false;
  const operator = operatorView();
  const processor = processorCalls(operator);
  setHandler(withdrawalStatusQuery, () => record);
  setHandler(withdrawalCancelledSignal, (cancelledRecord) => {
    cancelled = true;
    record = cancelledRecord;
  });

  // Decided before the first command, so a run started before this patch replays its activities.
  const { startWithdrawalProcessing, completeWithdrawal, failWithdrawal } = patched('local-database-steps') ? localSteps : remoteSteps;

  const processAt = new Date(Date.now() + input.processingDelayMs).toISOString();
  operator.step(`Pending: processing starts at ${processAt} (after ${formatWait(input.processingDelayMs)}); the merchant can cancel until then`);
  // A delay of 0 (an operator restarting a terminated workflow) goes straight to the conditional move.
  if (input.processingDelayMs > 0 && (await condition(() => cancelled, input.processingDelayMs))) return finish('cancelled');

  operator.step('Moving to processing');
  record = await startWithdrawalProcessing(id);
  // A cancel that committed first wins; the record says so and there is nothing left to do.
  if (record.status !== 'processing') return finish(record.status);
  operator.status('processing');

  const payout = await processor.call('Paying out on the processor', PAYOUT_DECLINED, () => payWithdrawal(id));
  operator.step(payout.ok ? 'Recording the payout' : 'Recording the failed payout');
  record = payout.ok ? await completeWithdrawal(id, payout.value) : await failWithdrawal(id, payout.reason);
  return finish(record.status);

  function finish(status: WithdrawalRecord['status']) {
    operator.status(status);
    operator.step(`Done: ${status}${record.failureReason ? ` (${record.failureReason})` : ''}`);
    return status;
  }
}
