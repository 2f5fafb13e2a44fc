import type { WebhookAttemptResult, WebhookDeliveryResult } from '../contracts/webhooks.js';
import { createDeliveryAttempts, type AttemptInput, type WebhookSendDeps, type FirstAttempts } from '../src/modules/webhooks/index.js';

export type WebhookActivityDeps = WebhookSendDeps & {
  /** The worker's fan-out's first attempts (first-attempts.service.ts), which the workflow's first attempt waits for. */
  firstAttempts?: Pick<FirstAttempts, 'underWay'>;
};

/** A delivery's attempts, as its workflow asks for them (src/modules/webhooks/delivery-attempt.service.ts). */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const attempts = createDeliveryAttempts(deps);
  return {
    /**
     * One attempt, as runs started before endpoint pacing ask for it (the fixed schedule only). Kept
     * while such runs may be open: docs/decisions.md, Workflow versioning.
     */
    async attemptWebhookDelivery(input: AttemptInput): Promise<WebhookDeliveryResult> {
      return (await attempts.once(input)).outcome;
    },

    /**
     * One attempt at the endpoint's pace: `wait` (with how long) while the endpoint's turn, a throttle
     * gap, or an attempt still under way elsewhere is ahead; otherwise what the attempt came to. Sent
     * once: run again, it reads the outcome of the attempt it claimed before.
     */
    async sendWebhookAttempt(input: AttemptInput & { now: number; turnTaken: boolean }): Promise<WebhookAttemptResult> {
      // The fan-out may be sending this first attempt in this process: its outcome, once it has one, is read.
      if (input.attemptNumber === 1) await deps.firstAttempts?.underWay(input.deliveryId);
      return attempts.paced(input);
    },

    /** After the last attempt: `failed`, unless something already finished it. Safe to run twice. */
    failWebhookDelivery: (deliveryId: string): Promise<void> => attempts.fail(deliveryId),
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
