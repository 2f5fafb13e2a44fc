import { condition, log, patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { WithdrawalActivities } from '../activities/withdrawals.js';
import { PAYOUT_DECLINED } from '../contracts/failure-types.js';
import { withdrawalCancelledSignal, withdrawalStatusQuery, type WithdrawalRecord, type WithdrawalWorkflowInput } from '../contracts/withdrawals.js';
import { databaseStepOptions, operatorView, processorCallOptions, processorCalls, formatWait } from './in-flight.js';

/**
 * A `cancelled` signal naming another withdrawal (a payload copied from its history) is ignored: it would
 * otherwise end this run as cancelled while the row stays pending, its money held in `pending_withdrawal`
 * for ever. Runs begun before this patch took any record, and replay as they ran
 * (`withdrawal-*-before-named-messages.json`).
 */
export const NAMED_MESSAGES_PATCH = 'messages-name-their-record';
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
  // Decided before the first command, so a run started before these patches replays as it ran.
  const { startWithdrawalProcessing, completeWithdrawal, failWithdrawal } = patched('local-database-steps') ? localSteps : remoteSteps;
  const named = patched(NAMED_MESSAGES_PATCH);
  setHandler(withdrawalStatusQuery, () => record);
  setHandler(withdrawalCancelledSignal, (cancelledRecord) => {
    if (named && cancelledRecord?.id !== id) {
      log.warn('Ignored a cancelled signal naming another withdrawal', { withdrawalId: id, named: cancelledRecord?.id });
      return;
    }
    cancelled = true;
    record = cancelledRecord;
  });

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
