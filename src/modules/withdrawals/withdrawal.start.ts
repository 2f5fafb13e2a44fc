import { withdrawalCancelledSignal, withdrawalWorkflowContract, type WithdrawalWorkflowInput } from '../../../contracts/withdrawals.js';
import { withdrawalWorkflowId } from '../../../contracts/workflow-ids.js';
import { centsToDecimalString } from '../../domain/money.js';
import { workflowSignal, workflowStart, type WorkflowSignal, type WorkflowStart } from '../outbox/index.js';
import type { Withdrawal } from './withdrawal.entity.js';
import { withdrawalView } from './withdrawal.view.js';

/** The start of a new withdrawal's workflow, for the outbox row inserted with it. */
export function withdrawalWorkflowStart(withdrawal: Withdrawal, processingDelayMs: number): WorkflowStart {
  const args: [WithdrawalWorkflowInput] = [{ withdrawalId: withdrawal.id, processingDelayMs, record: withdrawalView(withdrawal) }];
  return workflowStart(withdrawalWorkflowContract, {
    workflowId: withdrawalWorkflowId(withdrawal.id),
    args,
    searchAttributes: {
      BusinessId: withdrawal.businessId,
      Livemode: withdrawal.livemode,
      PaymentStatus: 'pending',
      AmountInCents: withdrawal.amountInCents,
    },
    // No e-mail or address here: the Temporal UI is for operators, the destination stays in the database.
    summary: `Withdrawal ${withdrawal.id} of $${centsToDecimalString(withdrawal.amountInCents)} to ${withdrawal.destinationType}`,
  });
}

/** Tells the withdrawal's workflow it was cancelled, once the cancel's transaction commits. */
export const withdrawalCancelled = (withdrawal: Withdrawal): WorkflowSignal =>
  workflowSignal(withdrawalCancelledSignal, { workflowId: withdrawalWorkflowId(withdrawal.id), args: [withdrawalView(withdrawal)] });
