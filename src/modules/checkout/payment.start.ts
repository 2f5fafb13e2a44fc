import { checkoutWorkflowContract, settlePaymentSignal } from '../../../contracts/checkout.js';
import { checkoutWorkflowId } from '../../../contracts/workflow-ids.js';
import { centsToDecimalString } from '../../domain/money.js';
import { workflowSignalWithStart, type WorkflowSignalWithStart } from '../outbox/workflow-message.rules.js';

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
