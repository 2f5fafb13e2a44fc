import type { MikroORM } from '@mikro-orm/postgresql';
import ms from 'ms';
import type { Logger } from 'pino';
import type { WebhookAttemptResult } from '../../../contracts/webhooks.js';
import { metrics } from '../../ops/metrics.js';
import { DEFAULT_DISABLE_AFTER_MS, noteAttemptOutcome } from './auto-disable.service.js';
import { createWebhookTransport, storableText, type PostOutcome, type WebhookTransport } from './delivery.transport.js';
import { recordDelivered, recordFailedAttempt, type AttemptRecord, type ClaimedDelivery } from './delivery.lifecycle.js';
import { postponeEndpoint } from './endpoint-pacing.service.js';
import { retryAfterMs } from './retry-after.rules.js';
import { openSecret } from './secret-box.crypto.js';
import { signatureHeader } from './signature.crypto.js';

export interface WebhookSendDeps {
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

const WEBHOOK_USER_AGENT = 'PaymentsService-Webhooks/1.0';

export interface AttemptInput {
  deliveryId: string;
  attemptNumber: number;
  /** Delay before the next attempt, or null when this is the last one. */
  nextDelayMs: number | null;
}

/** An attempt's outcome: never `wait`, which is answered before anything is sent. */
export type AttemptDone = Exclude<WebhookAttemptResult, { outcome: 'wait' }>;

/**
 * Sends a claimed delivery: signs and POSTs it once, then records the attempt, the delivery's new state
 * and the endpoint's streak. Never throws for what the receiver did; a non-2xx, a timeout or a refused
 * address are recorded failures.
 */
export function createClaimedDeliverySender(deps: WebhookSendDeps) {
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

  /** `startedAt`: a throttled attempt's turn, by the database's clock, recorded as the attempt's time. */
  async function sendClaimed(row: ClaimedDelivery, input: AttemptInput, at: Date, startedAt: Date | null = null): Promise<AttemptDone> {
    const attemptedAt = startedAt ?? new Date();
    const outcome = await send(row, input.deliveryId);
    const attempt: AttemptRecord = { ...input, attemptedAt, ...outcome };
    if (outcome.ok) {
      // Delivered, the common case: the attempt, the delivery and the endpoint's streak in one statement.
      await recordDelivered(em(), attempt, row.endpoint_id);
      metrics.webhookAttempt('delivered');
      metrics.webhookDelivery('delivered');
      return { outcome: 'succeeded' };
    }
    const status = input.nextDelayMs === null ? 'failed' : 'pending';
    // A 429 or 503 with Retry-After puts off this delivery's next attempt, and the endpoint's, to then.
    const postponeMs = retryAfterMs(outcome.statusCode, outcome.retryAfter, attemptedAt);
    await em().transactional(async (tx) => {
      await recordFailedAttempt(tx, attempt, status === 'pending' ? (postponeMs ?? input.nextDelayMs ?? 0) : null);
      if (postponeMs !== null) await postponeEndpoint(tx, row.endpoint_id, postponeMs);
      await noteAttemptOutcome(tx, row.endpoint_id, false, at, disableAfterMs);
    });
    metrics.webhookAttempt('failed');
    if (status !== 'pending') metrics.webhookDelivery('failed');
    const next = status === 'pending' ? `next attempt in ${ms(postponeMs ?? input.nextDelayMs ?? 0, { long: true })}` : 'no attempts left, so the delivery has failed';
    deps.log?.warn(
      { deliveryId: input.deliveryId, eventId: row.event_id, endpointId: row.endpoint_id, attempt: input.attemptNumber, statusCode: outcome.statusCode, error: outcome.error },
      `webhook delivery ${input.deliveryId} to ${row.url} failed (attempt ${input.attemptNumber}: ${outcome.statusCode ? `HTTP ${outcome.statusCode}` : outcome.error}); ${next}`,
    );
    return { outcome: 'failed', retryAfterMs: postponeMs };
  }

  return sendClaimed;
}
export type ClaimedDeliverySender = ReturnType<typeof createClaimedDeliverySender>;
