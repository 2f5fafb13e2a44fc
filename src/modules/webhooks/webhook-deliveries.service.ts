import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids.js';
import { requireTransaction } from '../../db/transaction.js';
import { Event } from '../events/index.js';
import { claimForFastPath, OutboxEntry } from '../outbox/index.js';
import { deliveryWorkflowStart } from './delivery.start.js';
import { deliveryBody } from './delivery.view.js';
import { TEST_EVENT_TYPE } from './event-subscriptions.rules.js';
import { samplePayload } from './sample-events.rules.js';
import { WebhookDelivery, type WebhookEndpoint } from './webhook.entity.js';
import type { RecoverInput, TestEndpointInput } from './webhook-deliveries.schemas.js';

/** Events one recovery call re-sends at most; the answer's `hasMore` says to call again for the rest. */
export const RECOVERY_PAGE = 1000;
/**
 * Recovered deliveries' workflows start at this pace: the first second's worth at once (the request's
 * own fast path), the rest by the outbox relay as each row's claim runs out, so a page of a thousand
 * starts over 50 s instead of at once against Temporal and the receiver that just came back.
 */
export const RECOVERY_STARTS_PER_SECOND = 20;
/**
 * The window's events whose latest delivery to the endpoint failed, oldest event first, at most a page and
 * one (which says there is more). It walks the endpoint's failed deliveries whose event lies in the window
 * (`webhook_deliveries_failed_by_event_idx`: endpoint, then the event's time, which each delivery carries),
 * so the window bounds the read at both ends, and asks each whether it is its event's latest generation
 * through the unique (event, endpoint, generation) index, stopping at the page. A scalar subquery on
 * purpose: PostgreSQL runs it per row, where as a join it may hash the endpoint's whole history to answer it.
 */
export const FAILED_IN_WINDOW = `select d.event_id
  from webhook_deliveries d
  where d.endpoint_id = ? and d.status = 'failed' and d.event_created_at between ? and ?
    and d.generation = (select max(newer.generation) from webhook_deliveries newer
                        where newer.event_id = d.event_id and newer.endpoint_id = d.endpoint_id)
  order by d.event_created_at, d.id
  limit ?`;

/** The latest delivery to the endpoint of each of the given (locked) events. */
const LATEST_OF = `select distinct on (d.event_id) d.event_id, d.event_created_at, d.generation, d.status, d.body
  from webhook_deliveries d
  where d.endpoint_id = ? and d.event_id in (?)
  order by d.event_id, d.generation desc`;

interface Started {
  outbox: OutboxEntry[];
}

/** A pending delivery of an event to an endpoint: its first (generation 0) or a re-sent one. */
export function newDelivery(
  tx: EntityManager,
  source: { eventId: string; eventCreatedAt: Date; endpointId: string; businessId: string; livemode: boolean; body: string },
  generation: number,
  now: Date,
) {
  return tx.create(WebhookDelivery, {
    id: newId('whd'),
    ...source,
    generation,
    status: 'pending',
    attemptCount: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  });
}

/**
 * The endpoint comes locked and enabled (`lockEnabledEndpoint`).
 *
 * `POST /api/webhooks/:id/test`: one event marked `test`, to this endpoint only (whatever it subscribes
 * to; no fan-out), delivered, signed and retried like any other, and shown in the event log.
 */
export async function sendTestEvent(
  tx: EntityManager,
  endpoint: WebhookEndpoint,
  input: TestEndpointInput,
  opts: { retryDelaysMs?: number[] } = {},
): Promise<Started & { eventId: string; deliveryId: string }> {
  requireTransaction(tx);
  const now = new Date();
  const type = input.eventType ?? TEST_EVENT_TYPE;
  const owner = { businessId: endpoint.businessId, livemode: endpoint.livemode };
  const event = tx.create(Event, { id: newId('evt'), ...owner, type, payload: samplePayload(type, endpoint, now), test: true, createdAt: now });
  // The event's sequence is the database's, drawn at its insert: written first, then read, for the body.
  await tx.flush();
  const [{ sequence }] = await tx.execute<{ sequence: string }[]>('select sequence from events where id = ?', [event.id]);
  const body = deliveryBody({ ...event, sequence: Number(sequence) });
  const delivery = newDelivery(tx, { eventId: event.id, eventCreatedAt: now, endpointId: endpoint.id, ...owner, body }, 0, now);
  const outbox = [claimForFastPath(tx.create(OutboxEntry, { message: deliveryWorkflowStart(delivery, opts.retryDelaysMs), createdAt: now }))];
  await tx.flush();
  return { eventId: event.id, deliveryId: delivery.id, outbox };
}

/**
 * `POST /api/webhooks/:id/recover`: the window's events whose latest delivery to this endpoint ended
 * `failed` are sent again as that delivery's next generation (same body, the normal schedule), at most
 * `RECOVERY_PAGE` of them, oldest failure first; `hasMore` says that more remain, which the same call again
 * recovers (the ones re-sent are no longer failed). Under the endpoint's row lock, and a re-sent event's
 * latest delivery is the new pending one, so a second identical call recovers nothing twice while the
 * first one's deliveries are in flight. Their workflows start paced (`RECOVERY_STARTS_PER_SECOND`).
 */
export async function recoverEvents(
  tx: EntityManager,
  endpoint: WebhookEndpoint,
  input: RecoverInput,
  opts: { retryDelaysMs?: number[] } = {},
): Promise<Started & { recovered: number; hasMore: boolean }> {
  requireTransaction(tx);
  const now = new Date();
  const since = new Date(input.since);
  const until = input.until ? new Date(input.until) : now;
  const candidates = await tx.execute<{ event_id: string }[]>(FAILED_IN_WINDOW, [endpoint.id, since, until, RECOVERY_PAGE + 1]);
  const hasMore = candidates.length > RECOVERY_PAGE;
  const page = candidates.slice(0, RECOVERY_PAGE).map((row) => row.event_id);
  if (!page.length) return { recovered: 0, hasMore, outbox: [] };
  // Only these events are locked, in id order, as a manual retry of one locks it: the two never give one
  // event the same next generation. Read again once locked, since a delivery may have ended meanwhile.
  const locked = await tx.execute<{ id: string }[]>(`select id from events where id in (?) order by id for update`, [page]);
  const latest = await tx.execute<{ event_id: string; event_created_at: Date | string; generation: number; body: string; status: string }[]>(LATEST_OF, [
    endpoint.id,
    locked.map((row) => row.id),
  ]);
  const failed = new Map(latest.filter((row) => row.status === 'failed').map((row) => [row.event_id, row]));
  const outbox: OutboxEntry[] = [];
  let recovered = 0;
  for (const eventId of page) {
    const row = failed.get(eventId);
    if (!row) continue;
    const source = { eventId, eventCreatedAt: new Date(row.event_created_at), endpointId: endpoint.id, businessId: endpoint.businessId, livemode: endpoint.livemode, body: row.body };
    const delivery = newDelivery(tx, source, row.generation + 1, now);
    const entry = tx.create(OutboxEntry, { message: deliveryWorkflowStart(delivery, opts.retryDelaysMs), createdAt: now });
    // The first second's worth is the request's fast path; each later one waits (its claim) for its
    // second, when the outbox relay takes it.
    const second = Math.floor(recovered++ / RECOVERY_STARTS_PER_SECOND);
    if (second === 0) outbox.push(claimForFastPath(entry));
    else entry.claimedUntil = new Date(now.getTime() + second * 1000);
  }
  await tx.flush();
  return { recovered, hasMore, outbox };
}
