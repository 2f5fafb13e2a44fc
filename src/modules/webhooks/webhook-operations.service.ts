import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids.js';
import { requireTransaction } from '../../db/transaction.js';
import { Event } from '../events/event.entity.js';
import { claimForFastPath } from '../outbox/outbox.dispatcher.js';
import { OutboxEntry } from '../outbox/outbox.entity.js';
import { deliveryWorkflowStart } from './delivery.workflow.js';
import { deliveryBody } from './delivery.view.js';
import { TEST_EVENT_TYPE } from './event-subscriptions.rules.js';
import { samplePayload } from './sample-events.rules.js';
import { WebhookDelivery, type WebhookEndpoint } from './webhook.entity.js';
import type { RecoverInput, TestEndpointInput } from './webhook-operations.schemas.js';

/** Each event of a window (endpoint, since, until) with its latest delivery to that endpoint. */
const LATEST_TO_ENDPOINT = `select distinct on (d.event_id) d.event_id, d.generation, d.status, d.body
  from webhook_deliveries d join events e on e.id = d.event_id
  where d.endpoint_id = ? and e.created_at >= ? and e.created_at <= ?
  order by d.event_id, d.generation desc`;

interface Started {
  outbox: OutboxEntry[];
}

/** A pending delivery of an event to an endpoint: its first (generation 0) or a re-sent one. */
export function newDelivery(tx: EntityManager, source: { eventId: string; endpointId: string; businessId: string; livemode: boolean; body: string }, generation: number, now: Date) {
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
  const delivery = newDelivery(tx, { eventId: event.id, endpointId: endpoint.id, ...owner, body: deliveryBody(event) }, 0, now);
  const outbox = [claimForFastPath(tx.create(OutboxEntry, { message: deliveryWorkflowStart(delivery, opts.retryDelaysMs), createdAt: now }))];
  await tx.flush();
  return { eventId: event.id, deliveryId: delivery.id, outbox };
}

/**
 * `POST /api/webhooks/:id/recover`: every event of the window whose latest delivery to this endpoint
 * ended `failed` is sent again as that delivery's next generation (same body, the normal schedule).
 * Under the endpoint's row lock, and a re-sent event's latest delivery is the new pending one, so a
 * second identical call recovers nothing twice while the first one's deliveries are in flight.
 */
export async function recoverEvents(
  tx: EntityManager,
  endpoint: WebhookEndpoint,
  input: RecoverInput,
  opts: { retryDelaysMs?: number[] } = {},
): Promise<Started & { recovered: number }> {
  requireTransaction(tx);
  const now = new Date();
  const until = input.until ? new Date(input.until) : now;
  const window = [endpoint.id, new Date(input.since), until];
  // Only the failed events are locked, in id order, as a manual retry of one locks it: the two never give
  // one event the same next generation, and the window's other events stay free. Read again once locked,
  // keeping only the locked ones, since a delivery may have ended between the two reads.
  const lockedRows = await tx.execute<{ id: string }[]>(
    `select e.id from events e where e.id in (select event_id from (${LATEST_TO_ENDPOINT}) latest where latest.status = 'failed')
     order by e.id for update`,
    window,
  );
  const locked = new Set(lockedRows.map((row) => row.id));
  const latest = await tx.execute<{ event_id: string; generation: number; body: string; status: string }[]>(LATEST_TO_ENDPOINT, window);
  const failed = latest.filter((row) => row.status === 'failed' && locked.has(row.event_id));
  const outbox: OutboxEntry[] = [];
  for (const row of failed) {
    const source = { eventId: row.event_id, endpointId: endpoint.id, businessId: endpoint.businessId, livemode: endpoint.livemode, body: row.body };
    const delivery = newDelivery(tx, source, row.generation + 1, now);
    outbox.push(claimForFastPath(tx.create(OutboxEntry, { message: deliveryWorkflowStart(delivery, opts.retryDelaysMs), createdAt: now })));
  }
  await tx.flush();
  return { recovered: failed.length, outbox };
}
