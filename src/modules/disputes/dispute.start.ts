import { disputeChangedSignal, disputeWorkflow, type DisputeWorkflowInput } from '../../../workflows/disputes.js';
import type { DisputeTimes } from '../../config.js';
import { centsToDecimalString } from '../../domain/money.js';
import type { Owner } from '../ledger/ledger.service.js';
import { workflowSignal, workflowStart, type WorkflowSignal, type WorkflowStart } from '../outbox/workflow-message.rules.js';
import type { Dispute } from './dispute.entity.js';
import { progressOf, type DisputeNotice } from './dispute.lifecycle.js';
import { disputeWorkflowId } from '../../../contracts/workflow-ids.js';

/**
 * The start of a dispute's workflow, for an outbox row written with the notice: by the payment of a
 * dispute test card (the notice arrives `noticeDelayMs` later) or with the dispute an operator entered
 * (`opened`, delay 0: its first step finds the dispute open). No personal data: ids, amounts, the reason.
 */
export function disputeWorkflowStart(
  notice: DisputeNotice,
  context: Owner & { amountInCents: number; times: DisputeTimes; noticeDelayMs: number; opened?: Dispute },
): WorkflowStart {
  const args: [DisputeWorkflowInput] = [
    {
      notice,
      noticeDelayMs: context.noticeDelayMs,
      responseWindowMs: context.times.responseWindowMs,
      reviewPeriodMs: context.times.reviewPeriodMs,
    },
  ];
  const kind = notice.inquiry ? 'Inquiry' : 'Chargeback';
  return workflowStart(disputeWorkflow, {
    workflowId: disputeWorkflowId(notice.disputeId),
    args,
    searchAttributes: {
      BusinessId: context.businessId,
      Livemode: context.livemode,
      AmountInCents: context.amountInCents,
      ...(context.opened ? { PaymentStatus: context.opened.status, EvidenceDueBy: context.opened.evidenceDueBy.toISOString() } : {}),
    },
    summary: `${kind} ${notice.disputeId} (${notice.reason}) of $${centsToDecimalString(context.amountInCents)} for session ${notice.checkoutSessionId}`,
  });
}

/** Tells the dispute's workflow what a merchant's request changed, once its transaction commits. */
export const disputeChanged = (dispute: Dispute): WorkflowSignal =>
  workflowSignal(disputeChangedSignal, { workflowId: disputeWorkflowId(dispute.id), args: [progressOf(dispute)] });
