import { refundWorkflowContract, type RefundWorkflowInput } from '../../../contracts/refunds.js';
import { refundWorkflowId } from '../../../contracts/workflow-ids.js';
import { centsToDecimalString } from '../../domain/money.js';
import { workflowStart, type WorkflowStart } from '../outbox/index.js';
import type { Refund } from './refund.entity.js';
import { refundView } from './refund.view.js';

/** The start of a new refund's workflow, for the outbox row written in the refund's transaction. */
export function refundWorkflowStart(refund: Refund): WorkflowStart {
  const args: [RefundWorkflowInput] = [{ refundId: refund.id, record: refundView(refund) }];
  return workflowStart(refundWorkflowContract, {
    workflowId: refundWorkflowId(refund.id),
    args,
    searchAttributes: { BusinessId: refund.businessId, Livemode: refund.livemode, PaymentStatus: 'pending', AmountInCents: refund.amountInCents },
    summary: `Refund ${refund.id} of $${centsToDecimalString(refund.amountInCents)} for session ${refund.checkoutSessionId}`,
  });
}
