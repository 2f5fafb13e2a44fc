import { log, proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks.js';
import type { WebhookDeliveryResult } from '../contracts/webhooks.js';

/** The spec's schedule: the delay before each of the 7 attempts. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  0,
  60_000, // 1 minute
  5 * 60_000, // 5 minutes
  30 * 60_000, // 30 minutes
  2 * 3600_000, // 2 hours
  8 * 3600_000, // 8 hours
  24 * 3600_000, // 24 hours
];

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** Only end-to-end tests shorten the schedule (config WEBHOOK_RETRY_DELAYS, refused outside tests). */
  delaysMs?: number[];
}

export type { WebhookDeliveryResult };

// One attempt is one HTTP POST: the activity never retries on its own, the schedule below does. Its
// timeout bounds the 10 s request plus two short database writes.
const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

const { failWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One per delivery (`webhook-delivery-whd_…`). Owns the retry schedule; the database owns the delivery's
 * state. It ends at the first 2xx, when the delivery was stopped (endpoint disabled or deleted), or after
 * the last attempt, with the delivery `failed`.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const delays = input.delaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
  for (let i = 0; i < delays.length; i++) {
    if (delays[i] > 0) await sleep(delays[i]);
    const nextDelayMs = i + 1 < delays.length ? delays[i + 1] : null;
    let outcome: WebhookDeliveryResult;
    try {
      outcome = await attemptWebhookDelivery({ deliveryId: input.deliveryId, attemptNumber: i + 1, nextDelayMs });
    } catch (err) {
      // The attempt itself broke (worker lost mid-request, database down): it counts as a failed attempt.
      log.warn('webhook attempt failed to run', { deliveryId: input.deliveryId, attempt: i + 1, error: String(err) });
      outcome = 'failed';
    }
    if (outcome !== 'failed') return outcome;
  }
  await failWebhookDelivery(input.deliveryId);
  return 'failed';
}
