import { checkoutWorkflowContract, paymentIntentChangedSignal, settlePaymentSignal } from '../../../contracts/checkout.js';
import { checkoutWorkflowId } from '../../../contracts/workflow-ids.js';
import { centsToDecimalString } from '../../domain/money.js';
import { workflowSignal, workflowSignalWithStart, type WorkflowSignal, type WorkflowSignalWithStart } from '../outbox/index.js';

/**
 * A payment in doubt handed to its owner: the session's checkout workflow is told to settle it, and is
 * started again for it when no run is open (one terminated, or closed before it could know).
 */
export function settlePaymentMessage(session: { id: string; businessId: string; livemode: boolean; total: number; expiresAt: Date }): WorkflowSignalWithStart {
  return workflowSignalWithStart(checkoutWorkflowContract, settlePaymentSignal, {
    workflowId: checkoutWorkflowId(session.id),
    args: [{ sessionId: session.id, expiresAt: session.expiresAt.toISOString() }],
    signalArgs: [session.id],
    searchAttributes: { BusinessId: session.businessId, Livemode: session.livemode, PaymentStatus: 'processing', AmountInCents: session.total },
    summary: `Checkout ${session.id} of $${centsToDecimalString(session.total)}`,
  });
}

/**
 * A pay call told `processing` for its own attempt, its outcome unheard, asks the session's open run to look:
 * the update may have been lost with a restarted server after its first step committed, and a run that has
 * heard other pays would not otherwise look until the expiry sweep's hand-over. A run still paying ignores
 * it; a closed run needs nothing (the signal to it counts as delivered).
 */
export const settleIfInDoubtMessage = (sessionId: string): WorkflowSignal =>
  workflowSignal(settlePaymentSignal, { workflowId: checkoutWorkflowId(sessionId), args: [sessionId] });

/**
 * The acquirer has news of the charge the session's customer confirms in the browser (its event, or the
 * customer back from 3-D Secure): the session's run reads the charge itself, so a forged or repeated nudge
 * can only make it read again. A closed run needs nothing.
 */
export const paymentIntentChangedMessage = (sessionId: string): WorkflowSignal =>
  workflowSignal(paymentIntentChangedSignal, { workflowId: checkoutWorkflowId(sessionId), args: [sessionId] });
