import type { MikroORM } from '@mikro-orm/postgresql';
import { openSecret } from '../src/modules/webhooks/secret-box.crypto.js';
import { signatureHeader } from '../src/modules/webhooks/signature.crypto.js';
import { createWebhookTransport, storableText, type PostOutcome, type WebhookTransport } from '../src/modules/webhooks/delivery.transport.js';
import type { WebhookDeliveryResult } from '../contracts/webhooks.js';
import { metrics } from '../src/ops/metrics.js';

export interface WebhookActivityDeps {
  orm: MikroORM;
  webhooks: {
    encryptionKey: Buffer;
    caFile?: string;
    allowPrivateUrls: boolean;
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

export function createWebhookActivities(deps: WebhookActivityDeps) {
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

  async function send(row: ClaimedDelivery): Promise<PostOutcome> {
    const now = new Date();
    try {
      // `t` is taken fresh for every attempt, so a receiver's 300 s tolerance accepts a retry a day later.
      const t = Math.floor(now.getTime() / 1000);
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT,
        'X-Webhook-Id': row.event_id,
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

  return {
    /**
     * One attempt: claim the delivery (only while it is pending and its endpoint is enabled and not
     * deleted), POST it once, record the attempt and the delivery's new state. Never throws for what the
     * receiver did; a non-2xx, a timeout or a refused address are recorded failures.
     */
    async attemptWebhookDelivery(input: {
      deliveryId: string;
      attemptNumber: number;
      /** Delay before the next attempt, or null when this is the last one. */
      nextDelayMs: number | null;
    }): Promise<WebhookDeliveryResult> {
      // `delivering` too: an attempt whose worker died mid-request left it so, and the schedule moved on.
      const claimed = await em().execute<ClaimedDelivery[]>(
        `update webhook_deliveries d set status = 'delivering', attempt_count = ?, next_attempt_at = null, updated_at = now()
         from webhook_endpoints e
         where d.id = ? and e.id = d.endpoint_id and d.status in ('pending', 'delivering')
           and e.enabled and e.deleted_at is null
         returning d.body, d.event_id, d.endpoint_id, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at`,
        [input.attemptNumber, input.deliveryId],
      );
      const row = claimed[0];
      if (!row) {
        // Finished already, or its endpoint was disabled or deleted: nothing is sent, and it ends `failed`.
        await em().execute(
          `update webhook_deliveries d set status = 'failed', next_attempt_at = null, completed_at = now(), updated_at = now(),
             last_error = case when e.deleted_at is not null then 'Endpoint deleted' else 'Endpoint disabled' end
           from webhook_endpoints e
           where d.id = ? and e.id = d.endpoint_id and d.status in ('pending', 'delivering')`,
          [input.deliveryId],
          'run',
        );
        return 'stopped';
      }

      const attemptedAt = new Date();
      const outcome = await send(row);
      const status = outcome.ok ? 'succeeded' : input.nextDelayMs === null ? 'failed' : 'pending';
      await em().transactional(async (tx) => {
        await tx.execute(
          `insert into webhook_attempts
             (delivery_id, attempt_number, attempted_at, status_code, duration_ms, response_body, error, succeeded)
           values (?, ?, ?, ?, ?, ?, ?, ?)
           on conflict (delivery_id, attempt_number) do nothing`,
          [input.deliveryId, input.attemptNumber, attemptedAt, outcome.statusCode, outcome.durationMs, outcome.responseBody, outcome.error, outcome.ok],
          'run',
        );
        const now = new Date();
        await tx.execute(
          `update webhook_deliveries set status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?,
             completed_at = ?, updated_at = now()
           where id = ? and status = 'delivering'`,
          [
            status,
            outcome.statusCode,
            outcome.error,
            status === 'pending' ? new Date(now.getTime() + (input.nextDelayMs ?? 0)) : null,
            status === 'pending' ? null : now,
            input.deliveryId,
          ],
          'run',
        );
      });
      metrics.webhookAttempt(outcome.ok ? 'delivered' : 'failed');
      if (status !== 'pending') metrics.webhookDelivery(outcome.ok ? 'delivered' : 'failed');
      return outcome.ok ? 'succeeded' : 'failed';
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
