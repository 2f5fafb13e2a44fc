/**
 * contracts/: what workflows and activities both need (failure types, search attributes, shared result
 * types), outside both so neither imports the other's values. Workflow code imports it, so it stays
 * deterministic: no Node built-ins, no I/O, nothing from src/ (ESLint enforces this).
 */
import { workflowContract } from './workflows.js';

/**
 * The spec's schedule: the delay before each of the 7 attempts. The delivery workflow sleeps it; the
 * worker's fan-out reads its first two delays to send a first attempt at once (src/modules/webhooks/
 * first-attempts.service.ts). Here, not in the workflow, so that service does not import the workflow,
 * whose activity type leads back to it.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  0,
  60_000, // 1 minute
  5 * 60_000, // 5 minutes
  30 * 60_000, // 30 minutes
  2 * 3600_000, // 2 hours
  8 * 3600_000, // 8 hours
  24 * 3600_000, // 24 hours
];

/** How a webhook delivery ended: the delivery workflow's result, which the failing activity also reports. */
export type WebhookDeliveryResult = 'succeeded' | 'failed' | 'stopped';

/**
 * One paced attempt (`sendWebhookAttempt`): `wait` when the endpoint's turn is still ahead (nothing was
 * sent or counted); a failure carries the receiver's Retry-After, when it gave one, for the next wait.
 */
export type WebhookAttemptResult =
  | { outcome: 'succeeded' | 'stopped' }
  | { outcome: 'failed'; retryAfterMs: number | null }
  | { outcome: 'wait'; waitMs: number };

/** The webhook delivery workflow's contract: its start input (workflows/webhooks.ts runs it). */
export interface WebhookDeliveryInput {
  deliveryId: string;
  /** Only end-to-end tests shorten the schedule (config WEBHOOK_RETRY_DELAYS, refused outside tests). */
  delaysMs?: number[];
}

export const webhookDeliveryWorkflowContract = workflowContract<(input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>>('webhookDeliveryWorkflow');
