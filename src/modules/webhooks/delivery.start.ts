import type { SearchAttributeValues } from '../../../contracts/search-attributes.js';
import { webhookDeliveryWorkflowContract, type WebhookDeliveryInput } from '../../../contracts/webhooks.js';
import { workflowStart } from '../outbox/index.js';
import { webhookDeliveryWorkflowId } from '../../../contracts/workflow-ids.js';

/**
 * How a delivery's workflow is started, as an outbox `workflow.start` message or directly (`startWorkflowOnce`:
 * a repeated fan-out can never send a delivered event again).
 */
export function deliveryWorkflowStart(
  delivery: { id: string; eventId: string; endpointId: string; businessId: string; livemode: boolean },
  retryDelaysMs?: number[],
) {
  const input: WebhookDeliveryInput = { deliveryId: delivery.id, ...(retryDelaysMs ? { delaysMs: retryDelaysMs } : {}) };
  const searchAttributes: SearchAttributeValues = { BusinessId: delivery.businessId, Livemode: delivery.livemode };
  return workflowStart(webhookDeliveryWorkflowContract, {
    workflowId: webhookDeliveryWorkflowId(delivery.id),
    args: [input],
    searchAttributes,
    summary: `Webhook ${delivery.eventId} to ${delivery.endpointId}`,
  });
}
