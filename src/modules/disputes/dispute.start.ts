import { disputeChangedSignal, disputeWorkflowContract, type DisputeWorkflowInput } from '../../../contracts/disputes.js';
import type { DisputeTimes } from '../../config.js';
import { centsToDecimalString } from '../../domain/money.js';
import type { Owner } from '../ledger/index.js';
import { workflowSignal, workflowStart, type WorkflowSignal, type WorkflowStart, OutboxEntry } from '../outbox/index.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Dispute } from './dispute.entity.js';
import { progressOf, type DisputeNotice } from './dispute.lifecycle.js';
import { disputeWorkflowId } from '../../../contracts/workflow-ids.js';
import type { AcquirerDisputeNotice } from '../../../contracts/disputes.js';
import { newId } from '../../domain/ids.js';

/**
 * The start of a dispute's workflow, for an outbox row written with the notice: by the payment of a
 * dispute test card (the notice arrives `noticeDelayMs` later) or with the dispute an operator entered
 * (`opened`, delay 0: its first step finds the dispute open). No personal data: ids, amounts, the reason.
 */
export function disputeWorkflowStart(
  notice: DisputeNotice,
  context: Owner & { amountInCents: number; times: DisputeTimes; noticeDelayMs: number; opened?: Dispute },
): WorkflowStart {
  // A real acquirer's dispute is followed as that acquirer's: its evidence goes to it and its outcome comes from it.
  const acquirer = context.opened?.acquirer ?? undefined;
  const args: [DisputeWorkflowInput] = [
    {
      notice,
      noticeDelayMs: context.noticeDelayMs,
      responseWindowMs: context.times.responseWindowMs,
      reviewPeriodMs: context.times.reviewPeriodMs,
      ...(acquirer ? { acquirer } : {}),
    },
  ];
  const kind = notice.inquiry ? 'Inquiry' : 'Chargeback';
  return workflowStart(disputeWorkflowContract, {
    workflowId: disputeWorkflowId(notice.disputeId),
    args,
    searchAttributes: {
      BusinessId: context.businessId,
      Livemode: context.livemode,
      AmountInCents: context.amountInCents,
      ...(context.opened ? { PaymentStatus: context.opened.status, EvidenceDueBy: context.opened.evidenceDueBy.toISOString() } : {}),
    },
    summary: `${kind} ${notice.disputeId} (${notice.reason}) of $${centsToDecimalString(context.amountInCents)} for session ${notice.checkoutSessionId}${acquirer ? `, reported by ${acquirer}` : ''}`,
  });
}

/**
 * The notice of a dispute the acquirer already announces about a payment just completed (the simulator's
 * dispute cards), written in the payment's transaction: the start of the dispute's workflow, whose notice
 * arrives `noticeDelayMs` later, so the payment is visible on its own first. The simulator's business,
 * not the payment's: the payment's activity asks the processor, and writes this only when it answers one.
 */
export function announceDispute(
  tx: EntityManager,
  payment: Owner & { sessionId: string; amountInCents: number },
  announced: AcquirerDisputeNotice,
  times: DisputeTimes,
  at: Date,
): void {
  const notice: DisputeNotice = { disputeId: newId('dsp'), checkoutSessionId: payment.sessionId, amountInCents: null, ...announced };
  const context = { businessId: payment.businessId, livemode: payment.livemode, amountInCents: payment.amountInCents, times, noticeDelayMs: times.noticeDelayMs };
  tx.create(OutboxEntry, { createdAt: at, message: disputeWorkflowStart(notice, context) });
}

/** Tells the dispute's workflow what a merchant's request changed, once its transaction commits. */
export const disputeChanged = (dispute: Dispute): WorkflowSignal =>
  workflowSignal(disputeChangedSignal, { workflowId: disputeWorkflowId(dispute.id), args: [progressOf(dispute)] });
