import type { MikroORM } from '@mikro-orm/postgresql';
import type { WebhookAttemptResult } from '../../../contracts/webhooks.js';
import { createClaimedDeliverySender, type AttemptDone, type AttemptInput, type WebhookSendDeps } from './delivery-send.service.js';
import { attemptStanding, claimAttempt, claimAttempts, failDelivery, stopForEndpoint, type ClaimedDelivery } from './delivery.lifecycle.js';
import { takeTurn } from './endpoint-pacing.service.js';

/**
 * The longest an attempt takes to record its outcome: the POST's own 10 s deadline and two short writes
 * fit well inside, and it is the attempt activity's start-to-close timeout (workflows/webhooks.ts). An
 * attempt still `delivering` this long after its claim died on the way.
 */
const ATTEMPT_LIMIT_MS = 30_000;
/** The shortest wait before an attempt under way in another process is read again. */
const IN_FLIGHT_STEP_MS = 250;

/**
 * A delivery's attempts, as its workflow's activities make them (activities/webhooks.ts) and, for a first
 * attempt, as the worker's fan-out makes it (fanout.service.ts). The delivery's row decides: an attempt
 * is claimed once (`attempt_count`), while the delivery is pending and its endpoint enabled.
 */
export function createDeliveryAttempts(deps: WebhookSendDeps & { orm: MikroORM }) {
  const sendClaimed = createClaimedDeliverySender(deps);
  const em = () => deps.orm.em.fork();

  /**
   * Claims the delivery for an attempt (delivery.lifecycle.ts); with `unpacedOnly`, only when its endpoint
   * has no turn to take (endpoint-pacing.service.ts). Of the fan-out's first attempt and the workflow's, or
   * a local attempt and its run again after its worker died, one claims and sends; the other reads what it
   * came to (`alreadyAttempted`).
   */
  const claim = (input: AttemptInput, unpacedOnly = false): Promise<ClaimedDelivery | undefined> =>
    claimAttempt(em(), input.deliveryId, input.attemptNumber, unpacedOnly);

  /**
   * An attempt claimed before (`attempt_count` already at or past it): what it came to, read from the
   * delivery, instead of a second POST: the fan-out sent the first attempt, or a local attempt runs again
   * after its worker died before the workflow recorded its result. Recorded, its outcome stands, and a
   * failure keeps the wait it set (the next delay, or the receiver's Retry-After). Still `delivering`, it
   * is under way in another process or died there: `inFlightMs` says how long to wait before reading it
   * again, as long as it has been under way so far (at least IN_FLIGHT_STEP_MS), so its outcome is read
   * about its own duration late at most; once ATTEMPT_LIMIT_MS have passed since its claim it counts as
   * failed, as an attempt activity that timed out does. Undefined when this attempt was never claimed.
   */
  async function alreadyAttempted(input: AttemptInput): Promise<{ done: AttemptDone; inFlightMs: number } | undefined> {
    const row = await attemptStanding(em(), input.deliveryId, input.attemptNumber);
    if (!row) return undefined;
    if (row.status === 'succeeded') return { done: { outcome: 'succeeded' }, inFlightMs: 0 };
    const retryAfterMs = row.status === 'pending' ? row.waitMs : null;
    const age = row.ageMs;
    const inFlightMs = row.status === 'delivering' && age < ATTEMPT_LIMIT_MS ? Math.min(ATTEMPT_LIMIT_MS - age, Math.max(IN_FLIGHT_STEP_MS, age)) : 0;
    return { done: { outcome: 'failed', retryAfterMs }, inFlightMs };
  }

  /** One attempt: claim the delivery, then send it (delivery-send.service.ts). */
  async function attempt(input: AttemptInput, at: Date, startedAt: Date | null = null): Promise<AttemptDone> {
    const row = await claim(input);
    if (!row) {
      const earlier = await alreadyAttempted(input);
      if (earlier) return earlier.done;
      // Finished already, or its endpoint was disabled or deleted: nothing is sent, and it ends `failed`.
      await stopForEndpoint(em(), input.deliveryId);
      return { outcome: 'stopped' };
    }
    return sendClaimed(row, input, at, startedAt);
  }

  return {
    /** One attempt as the fixed schedule of runs from before endpoint pacing makes it: no turn taken. */
    once: (input: AttemptInput): Promise<AttemptDone> => attempt(input, new Date()),

    /**
     * One attempt at the endpoint's pace (endpoint-pacing.service.ts): a turn still ahead, or a throttle
     * gap not yet over, is answered `wait` with how long, and nothing is sent or counted; `turnTaken` says
     * the workflow already slept until the turn it took. `now` is the workflow's time, which starts and
     * measures the endpoint's failure streak.
     */
    async paced(input: AttemptInput & { now: number; turnTaken: boolean }): Promise<WebhookAttemptResult> {
      // An endpoint with no throttle and no Retry-After in force has no turn to take: claimed in one
      // statement, not a locked read of the endpoint and then the claim (three round trips fewer).
      const unpaced = input.turnTaken ? undefined : await claim(input, true);
      if (unpaced) return sendClaimed(unpaced, input, new Date(input.now));
      // Before a turn is taken, which would overwrite the wait a recorded failure set.
      const earlier = await alreadyAttempted(input);
      if (earlier) return earlier.inFlightMs > 0 ? { outcome: 'wait', waitMs: earlier.inFlightMs } : earlier.done;
      const turn = await em().transactional((tx) => takeTurn(tx, input.deliveryId, input.turnTaken));
      if (turn.waitMs > 0) return { outcome: 'wait', waitMs: turn.waitMs };
      return attempt(input, new Date(input.now), turn.startedAt);
    },

    /**
     * The first attempts of an event's new deliveries, sent by the fan-out the moment they exist, each when
     * its endpoint has no turn to take (no throttle, no Retry-After in force). One statement claims them all
     * (`claimAttempts`), where a claim each would queue the event's deliveries on the process's connections
     * and commit one by one; each claimed one is then sent on its own. Each attempt settles undefined when
     * its delivery was not sent (a paced endpoint, or an attempt claimed already): its workflow makes or
     * reads it. `posted` settles, never rejecting, once the claim is answered and every claimed POST is on
     * its way (signed and handed to the socket, its `attempted_at` taken).
     */
    firsts(deliveryIds: readonly string[], nextDelayMs: number | null): { attempts: Map<string, Promise<AttemptDone | undefined>>; posted: Promise<void> } {
      const claimed = claimAttempts(em(), deliveryIds, 1, true);
      const attempts = new Map(
        deliveryIds.map((deliveryId) => {
          const sent = claimed.then((rows) => {
            const row = rows.get(deliveryId);
            return row && sendClaimed(row, { deliveryId, attemptNumber: 1, nextDelayMs }, new Date());
          });
          return [deliveryId, sent];
        }),
      );
      // Reactions run in the order they were added: this one after every send above has begun.
      const posted = claimed.then(
        () => undefined,
        () => undefined,
      );
      return { attempts, posted };
    },

    /** After the last attempt: `failed`, unless something already finished it. Safe to run twice. */
    fail: (deliveryId: string): Promise<void> => failDelivery(em(), deliveryId),
  };
}
export type DeliveryAttempts = ReturnType<typeof createDeliveryAttempts>;
