import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { toSearchAttributePairs, type SearchAttributeValues } from '../../../workflows/search-attributes.js';
import type { WebhookDeliveryInput } from '../../../workflows/webhook-delivery.js';

export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

/** How a delivery's workflow is started, as an outbox `workflow.start` message or directly. */
export function deliveryWorkflowStart(
  delivery: { id: string; eventId: string; endpointId: string; businessId: string; livemode: boolean },
  retryDelaysMs?: number[],
) {
  const input: WebhookDeliveryInput = { deliveryId: delivery.id, ...(retryDelaysMs ? { delaysMs: retryDelaysMs } : {}) };
  const searchAttributes: SearchAttributeValues = { BusinessId: delivery.businessId, Livemode: delivery.livemode };
  return {
    kind: 'workflow.start' as const,
    workflowType: 'webhookDeliveryWorkflow',
    workflowId: webhookDeliveryWorkflowId(delivery.id),
    args: [input],
    searchAttributes,
    summary: `Webhook ${delivery.eventId} to ${delivery.endpointId}`,
  };
}

/**
 * Starts a delivery's workflow once. REJECT_DUPLICATE makes a second start fail as "already started" even
 * after the first run has finished, so a repeated fan-out can never send a delivered event again.
 */
export async function startDeliveryWorkflow(temporal: Client, taskQueue: string, start: ReturnType<typeof deliveryWorkflowStart>) {
  try {
    await temporal.workflow.start(start.workflowType, {
      workflowId: start.workflowId,
      taskQueue,
      args: start.args,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: toSearchAttributePairs(start.searchAttributes),
      staticSummary: start.summary,
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
