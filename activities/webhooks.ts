import type { MikroORM } from '@mikro-orm/postgresql';
import ms from 'ms';
import type { Logger } from 'pino';
import { openSecret } from '../src/modules/webhooks/secret-box.crypto.js';
import { signatureHeader } from '../src/modules/webhooks/signature.crypto.js';
import { createWebhookTransport, storableText, type PostOutcome, type WebhookTransport } from '../src/modules/webhooks/delivery.transport.js';
import type { WebhookAttemptResult, WebhookDeliveryResult } from '../contracts/webhooks.js';
import { DEFAULT_DISABLE_AFTER_MS, noteAttemptOutcome } from '../src/modules/webhooks/auto-disable.service.js';
import { postponeEndpoint, takeTurn } from '../src/modules/webhooks/endpoint-pacing.service.js';
import { retryAfterMs } from '../src/modules/webhooks/retry-after.rules.js';
import { metrics } from '../src/ops/metrics.js';

export interface WebhookActivityDeps {
  orm: MikroORM;
  /** Where a failed attempt is reported (a warning: `npm start` shows it as a line). */
  log?: Logger;
  webhooks: {
    encryptionKey: Buffer;
    caFile?: string;
    allowPrivateUrls: boolean;
    /** How long an endpoint may fail without a success before it is disabled (default 5 days). */
    disableAfterMs?: number;
    /** Tests may bring their own transport; otherwise node's https with the configured CA. */
    transport?: WebhookTransport;
  };
}

export const WEBHOOK_USER_AGENT = 'PaymentsService-Webhooks/1.0';

interface ClaimedDelivery {
  body: string;
  event_id: string;
  endpoint_id: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

const INSERT_ATTEMPT = `
  insert into webhook_attempts (delivery_id, attempt_number, attempted_at, status_code, duration_ms, response_body, error, succeeded)
  values (?, ?, ?, ?, ?, ?, ?, ?)
  on conflict (delivery_id, attempt_number) do nothing`;

type Done = Exclude<WebhookAttemptResult, { outcome: 'wait' }>;

/**
 * The longest an attempt takes to record its outcome: the POST's own 10 s deadline and two short writes
 * fit well inside, and it is the attempt activity's start-to-close timeout (workflows/webhooks.ts). An
 * attempt still `delivering` this long after its claim died on the way.
 */
const ATTEMPT_LIMIT_MS = 30_000;

interface AttemptInput {
  deliveryId: string;
  attemptNumber: number;
  /** Delay before the next attempt, or null when this is the last one. */
  nextDelayMs: number | null;
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const disableAfterMs = deps.webhooks.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
  const post = deps.webhooks.transport ?? createWebhookTransport(deps.webhooks);
  const em = () => deps.orm.em.fork();

  /** Current secrets, newest first: the one before a rotation signs too for its 24 h. */
  function signingSecrets(row: ClaimedDelivery, now: Date): string[] {
    const key = deps.webhooks.encryptionKey;
    const secrets = [openSecret(key, row.endpoint_id, row.secret_sealed)];
    if (row.previous_secret_sealed && row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now) {
      secrets.push(openSecret(key, row.endpoint_id, row.previous_secret_sealed));
    }
    return secrets;
  }

  async function send(row: ClaimedDelivery, deliveryId: string): Promise<PostOutcome> {
    const now = new Date();
    try {
      // `t` is taken fresh for every attempt, so a receiver's 300 s tolerance accepts a retry a day later.
      const t = Math.floor(now.getTime() / 1000);
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT,
        'X-Webhook-Id': row.event_id,
        // This delivery (`whd_…`), which `POST /api/webhooks/retry/:id` re-sends; a retry is a new delivery.
        'X-Webhook-Delivery-Id': deliveryId,
        'X-Webhook-Timestamp': String(t),
        'X-Webhook-Signature': signatureHeader(signingSecrets(row, now), t, row.body),
      };
      const outcome = await post(row.url, headers, row.body);
      // Stored as text: a transport of a test's own may hand back what PostgreSQL cannot store.
      return { ...outcome, responseBody: storableText(outcome.responseBody), error: storableText(outcome.error) };
    } catch (err) {
      return { ok: false, statusCode: null, durationMs: 0, responseBody: null, error: storableText(`Could not send: ${(err as Error).message}`) };
    }
  }

  /**
   * Claims the delivery for an attempt, only while it is pending, this attempt has not been claimed
   * before, and its endpoint is enabled and not deleted; with `unpacedOnly`, only when the endpoint also
   * has no throttle and no Retry-After in force, the common case, which has no turn to take
   * (endpoint-pacing.service.ts).
   */
  async function claim(input: AttemptInput, unpacedOnly = false): Promise<ClaimedDelivery | undefined> {
    // `delivering` too: an attempt whose worker died mid-request left it so, and the schedule moved on.
    // `attempt_count < n`: each attempt is claimed once, so one run again after its worker died (a local
    // activity whose result the workflow never recorded) sends nothing (`alreadyAttempted`).
    const [row] = await em().execute<ClaimedDelivery[]>(
      `update webhook_deliveries d set status = 'delivering', attempt_count = ?, next_attempt_at = null, updated_at = now()
       from webhook_endpoints e
       where d.id = ? and e.id = d.endpoint_id and d.status in ('pending', 'delivering') and d.attempt_count < ?
         and e.enabled and e.deleted_at is null
         ${unpacedOnly ? 'and e.rate_limit_per_second is null and (e.next_attempt_not_before is null or e.next_attempt_not_before <= now())' : ''}
       returning d.body, d.event_id, d.endpoint_id, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at`,
      [input.attemptNumber, input.deliveryId, input.attemptNumber],
    );
    return row;
  }

  /**
   * An attempt claimed before (`attempt_count` already at or past it): what it came to, read from the
   * delivery, instead of a second POST. That happens when a local attempt runs again after its worker
   * died before the workflow recorded its result. Recorded, its outcome stands, and a failure keeps the
   * wait it set (the next delay, or the receiver's Retry-After). Still `delivering`, it counts as failed
   * once ATTEMPT_LIMIT_MS have passed since its claim, as an attempt activity that timed out does;
   * `inFlightMs` is how long until then, which a paced attempt waits out (it may be under way elsewhere).
   * Undefined when this attempt was never claimed.
   */
  async function alreadyAttempted(input: AttemptInput): Promise<{ done: Done; inFlightMs: number } | undefined> {
    const [row] = await em().execute<{ status: string; wait_ms: number | null; in_flight_ms: number }[]>(
      `select status, ceil(greatest(0, extract(epoch from (next_attempt_at - now())) * 1000))::float8 as wait_ms,
         ceil(greatest(0, extract(epoch from (updated_at + make_interval(secs => ? / 1000.0) - now())) * 1000))::float8 as in_flight_ms
       from webhook_deliveries where id = ? and attempt_count >= ?`,
      [ATTEMPT_LIMIT_MS, input.deliveryId, input.attemptNumber],
    );
    if (!row) return undefined;
    if (row.status === 'succeeded') return { done: { outcome: 'succeeded' }, inFlightMs: 0 };
    const retryAfterMs = row.status === 'pending' && row.wait_ms !== null ? Number(row.wait_ms) : null;
    return { done: { outcome: 'failed', retryAfterMs }, inFlightMs: row.status === 'delivering' ? Number(row.in_flight_ms) : 0 };
  }

  /**
   * One attempt: claim the delivery, POST it once, record the attempt, the delivery's new state and the
   * endpoint's streak. Never throws for what the receiver did; a non-2xx, a timeout or a refused address
   * are recorded failures.
   */
  async function attempt(input: AttemptInput, at: Date, startedAt: Date | null = null): Promise<Done> {
    const row = await claim(input);
    if (!row) {
      const earlier = await alreadyAttempted(input);
      if (earlier) return earlier.done;
      // Finished already, or its endpoint was disabled or deleted: nothing is sent, and it ends `failed`.
      await em().execute(
        `update webhook_deliveries d set status = 'failed', next_attempt_at = null, completed_at = now(), updated_at = now(),
           last_error = case when e.deleted_at is not null then 'Endpoint deleted' else 'Endpoint disabled' end
         from webhook_endpoints e
         where d.id = ? and e.id = d.endpoint_id and d.status in ('pending', 'delivering')`,
        [input.deliveryId],
        'run',
      );
      return { outcome: 'stopped' };
    }
    return sendClaimed(row, input, at, startedAt);
  }

  /** `startedAt`: a throttled attempt's turn, by the database's clock, recorded as the attempt's time. */
  async function sendClaimed(row: ClaimedDelivery, input: AttemptInput, at: Date, startedAt: Date | null = null): Promise<Done> {
    const attemptedAt = startedAt ?? new Date();
    const outcome = await send(row, input.deliveryId);
    const attemptRow = [input.deliveryId, input.attemptNumber, attemptedAt, outcome.statusCode, outcome.durationMs, outcome.responseBody, outcome.error, outcome.ok];
    if (outcome.ok) {
      // Delivered, the common case: the attempt, the delivery and the endpoint's streak in one statement.
      await em().execute(
        `with attempt as (${INSERT_ATTEMPT}),
           delivery as (
             update webhook_deliveries set status = 'succeeded', last_status_code = ?, last_error = null, next_attempt_at = null,
               completed_at = ?, updated_at = now()
             where id = ? and status = 'delivering')
         update webhook_endpoints set failing_since = null where id = ? and failing_since is not null`,
        [...attemptRow, outcome.statusCode, new Date(), input.deliveryId, row.endpoint_id],
        'run',
      );
      metrics.webhookAttempt('delivered');
      metrics.webhookDelivery('delivered');
      return { outcome: 'succeeded' };
    }
    const status = input.nextDelayMs === null ? 'failed' : 'pending';
    // A 429 or 503 with Retry-After puts off this delivery's next attempt, and the endpoint's, to then.
    const postponeMs = retryAfterMs(outcome.statusCode, outcome.retryAfter, attemptedAt);
    await em().transactional(async (tx) => {
      await tx.execute(INSERT_ATTEMPT, attemptRow, 'run');
      const now = new Date();
      await tx.execute(
        `update webhook_deliveries set status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?,
           completed_at = ?, updated_at = now()
         where id = ? and status = 'delivering'`,
        [
          status,
          outcome.statusCode,
          outcome.error,
          status === 'pending' ? new Date(now.getTime() + (postponeMs ?? input.nextDelayMs ?? 0)) : null,
          status === 'pending' ? null : now,
          input.deliveryId,
        ],
        'run',
      );
      if (postponeMs !== null) await postponeEndpoint(tx, row.endpoint_id, postponeMs);
      await noteAttemptOutcome(tx, row.endpoint_id, false, at, disableAfterMs);
    });
    metrics.webhookAttempt('failed');
    if (status !== 'pending') metrics.webhookDelivery('failed');
    const next = status === 'pending' ? `next attempt in ${ms(postponeMs ?? input.nextDelayMs ?? 0, { long: true })}` : 'no attempts left, the delivery is failed';
    deps.log?.warn(
      { deliveryId: input.deliveryId, eventId: row.event_id, endpointId: row.endpoint_id, attempt: input.attemptNumber, statusCode: outcome.statusCode, error: outcome.error },
      `webhook ${input.deliveryId} to ${row.url} failed (attempt ${input.attemptNumber}: ${outcome.statusCode ? `HTTP ${outcome.statusCode}` : outcome.error}); ${next}`,
    );
    return { outcome: 'failed', retryAfterMs: postponeMs };
  }

  return {
    /**
     * One attempt, as runs started before endpoint pacing ask for it (the fixed schedule only). Kept
     * while such runs may be open: docs/decisions.md, Workflow versioning.
     */
    async attemptWebhookDelivery(input: AttemptInput): Promise<WebhookDeliveryResult> {
      return (await attempt(input, new Date())).outcome;
    },

    /**
     * One attempt at the endpoint's pace (endpoint-pacing.service.ts): a turn still ahead, or a
     * throttle gap not yet over, is answered `wait` with how long, and nothing is sent or counted;
     * `turnTaken` says the workflow already slept until the turn it took. `now` is the
     * workflow's time, which starts and measures the endpoint's failure streak.
     */
    async sendWebhookAttempt(input: AttemptInput & { now: number; turnTaken: boolean }): Promise<WebhookAttemptResult> {
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

    /** After the last attempt: `failed`, unless something already finished it. Safe to run twice. */
    async failWebhookDelivery(deliveryId: string): Promise<void> {
      await em().execute(
        `update webhook_deliveries set status = 'failed', next_attempt_at = null, completed_at = now(), updated_at = now()
         where id = ? and status in ('pending', 'delivering')`,
        [deliveryId],
        'run',
      );
    },
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
