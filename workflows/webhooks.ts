import { log, patched, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks.js';
import { WEBHOOK_RETRY_DELAYS_MS, type WebhookAttemptResult, type WebhookDeliveryInput, type WebhookDeliveryResult } from '../contracts/webhooks.js';

// One attempt is one HTTP POST: the activity never retries on its own, the schedule below does. Its
// timeout bounds the 10 s request plus two short database writes.
const { attemptWebhookDelivery, sendWebhookAttempt } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

// The same attempt inside the workflow task (runs begun after LOCAL_ATTEMPTS_PATCH): no task-queue round
// trip between the task that decides to attempt and the POST. Killed mid-way, it runs again on the next
// worker, where the attempt finds itself already claimed and counts as failed (activities/webhooks.ts).
const { sendWebhookAttempt: sendWebhookAttemptLocally } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

const { failWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Runs from before this patch keep the fixed schedule they began with; runs after it take the
 * endpoint's turn before each attempt (throttle, Retry-After). docs/decisions.md, Workflow versioning.
 */
export const ENDPOINT_PACING_PATCH = 'webhook-endpoint-pacing';

/**
 * Runs from before this patch send each attempt as an activity; runs after it, as a local activity: the
 * first POST leaves in the run's first workflow task. docs/decisions.md, Hot paths.
 */
export const LOCAL_ATTEMPTS_PATCH = 'webhook-local-attempts';

type SendAttempt = WebhookActivities['sendWebhookAttempt'];

/**
 * One per delivery (`webhook-delivery-whd_…`). Owns the retry schedule and all waiting; the database owns
 * the delivery's state and the endpoint's pace. It ends at the first 2xx, when the delivery was stopped
 * (endpoint disabled or deleted), or after the last attempt, with the delivery `failed`.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const delays = input.delaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
  // Asked once, before the first command: a run that began without the patch never switches mid-way.
  if (!patched(ENDPOINT_PACING_PATCH)) return fixedSchedule(input.deliveryId, delays);
  const send: SendAttempt = patched(LOCAL_ATTEMPTS_PATCH) ? sendWebhookAttemptLocally : sendWebhookAttempt;
  let waitMs = delays[0];
  for (let i = 0; i < delays.length; i++) {
    if (waitMs > 0) await sleep(waitMs);
    const nextDelayMs = i + 1 < delays.length ? delays[i + 1] : null;
    const result = await pacedAttempt(send, { deliveryId: input.deliveryId, attemptNumber: i + 1, nextDelayMs });
    if (result.outcome !== 'failed') return result.outcome;
    // A receiver's Retry-After replaces the schedule's next delay (it is capped at 24 h).
    waitMs = result.retryAfterMs ?? nextDelayMs ?? 0;
  }
  await failWebhookDelivery(input.deliveryId);
  return 'failed';
}

/** One attempt at the endpoint's pace: asleep until the endpoint's turn (and the throttle's gap) when one is still ahead. */
async function pacedAttempt(send: SendAttempt, attempt: { deliveryId: string; attemptNumber: number; nextDelayMs: number | null }) {
  type Done = Exclude<WebhookAttemptResult, { outcome: 'wait' }>;
  try {
    let result = await send({ ...attempt, now: Date.now(), turnTaken: false });
    // Asleep until the turn it took; woken, it may still wait out the gap after an attempt kept late.
    while (result.outcome === 'wait') {
      await sleep(result.waitMs);
      result = await send({ ...attempt, now: Date.now(), turnTaken: true });
    }
    return result;
  } catch (err) {
    // The attempt itself broke (worker lost mid-request, database down): it counts as a failed attempt.
    log.warn('webhook attempt failed to run', { deliveryId: attempt.deliveryId, attempt: attempt.attemptNumber, error: String(err) });
    return { outcome: 'failed', retryAfterMs: null } satisfies Done;
  }
}

/** The schedule as it was before endpoint pacing, for runs that began then. */
async function fixedSchedule(deliveryId: string, delays: readonly number[]): Promise<WebhookDeliveryResult> {
  for (let i = 0; i < delays.length; i++) {
    if (delays[i] > 0) await sleep(delays[i]);
    const nextDelayMs = i + 1 < delays.length ? delays[i + 1] : null;
    let outcome: WebhookDeliveryResult;
    try {
      outcome = await attemptWebhookDelivery({ deliveryId, attemptNumber: i + 1, nextDelayMs });
    } catch (err) {
      // The attempt itself broke (worker lost mid-request, database down): it counts as a failed attempt.
      log.warn('webhook attempt failed to run', { deliveryId, attempt: i + 1, error: String(err) });
      outcome = 'failed';
    }
    if (outcome !== 'failed') return outcome;
  }
  await failWebhookDelivery(deliveryId);
  return 'failed';
}
