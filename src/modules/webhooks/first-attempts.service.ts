import type { Logger } from 'pino';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../../contracts/webhooks.js';
import type { DeliveryAttempts } from './delivery-attempt.service.js';

/** First attempts under way at once in one process; past it, a delivery's workflow sends its first attempt. */
const IN_FLIGHT = 64;

/**
 * A worker's first attempts (docs/decisions.md, Hot paths): the fan-out sends each new delivery's first
 * attempt the moment the delivery exists, just before its workflow's start, when the schedule's first delay
 * is none (the spec's "immediate"). The fan-out waits for the claim and the POST's leaving, never for the
 * receiver's answer, so a slow receiver holds no relay lane. The
 * workflow owns the delivery from there: its own first attempt, run in this process (an eager start
 * hands it here), waits for the one under way (`underWay`) and then reads what it came to.
 */
export function createFirstAttempts(attempts: Pick<DeliveryAttempts, 'firsts'>, log: Logger, retryDelaysMs: readonly number[] = WEBHOOK_RETRY_DELAYS_MS) {
  const inFlight = new Map<string, Promise<unknown>>();
  const immediate = retryDelaysMs[0] === 0;
  const nextDelayMs = retryDelaysMs.length > 1 ? retryDelaysMs[1] : null;
  return {
    /**
     * The first attempts of an event's new deliveries, claimed together (`firsts`), as many as fit under
     * IN_FLIGHT. Settles, never rejecting, once the claim is answered and each claimed POST is on its way;
     * each attempt itself runs on (`underWay`).
     */
    async send(deliveryIds: readonly string[]): Promise<void> {
      if (!immediate) return;
      const fresh = deliveryIds.filter((deliveryId) => !inFlight.has(deliveryId)).slice(0, Math.max(0, IN_FLIGHT - inFlight.size));
      if (fresh.length === 0) return;
      const { attempts: sending, posted } = attempts.firsts(fresh, nextDelayMs);
      for (const [deliveryId, attempt] of sending) {
        const sent = attempt
          .catch((err) => log.warn({ err, deliveryId }, 'first webhook attempt failed to run; its workflow takes the delivery over'))
          .finally(() => inFlight.delete(deliveryId));
        inFlight.set(deliveryId, sent);
      }
      await posted;
    },
    /** Settles when this process's first attempt of the delivery has finished; at once when none is under way. */
    async underWay(deliveryId: string): Promise<void> {
      await inFlight.get(deliveryId);
    },
    /** Settles when every first attempt under way has finished (a worker's shutdown). */
    async settled(): Promise<void> {
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
export type FirstAttempts = ReturnType<typeof createFirstAttempts>;
