import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../businesses/index.js';
import { DomainError } from '../../domain/errors.js';
import { claimForFastPath, OutboxEntry } from '../outbox/index.js';
import { deliveryWorkflowStart } from './delivery.start.js';
import { WebhookDelivery, WebhookEndpoint } from './webhook.entity.js';
import { newDelivery } from './webhook-deliveries.service.js';
import { requireTransaction } from '../../db/transaction.js';

/**
 * `POST /api/webhooks/retry/:id`. An event id re-delivers the event to each endpoint (still enabled)
 * whose last delivery of it failed; a delivery id re-delivers that one. Each re-delivery is a new delivery
 * (next generation, same body) with its own workflow and schedule, started through the outbox written in
 * the same transaction, so a crash right after the answer cannot lose it.
 */
export async function retryDeliveries(
  tx: EntityManager,
  caller: Caller,
  id: string,
  opts: { retryDelaysMs?: number[] } = {},
): Promise<{ deliveries: WebhookDelivery[]; outbox: OutboxEntry[] }> {
  requireTransaction(tx);
  const owner = { businessId: caller.businessId, livemode: caller.livemode };
  let sources: WebhookDelivery[];
  if (id.startsWith('evt_')) {
    // The event row's lock serialises concurrent retries of it, so generations never collide.
    const locked = await tx.execute(`select id from events where id = ? and business_id = ? and livemode = ? for update`, [id, owner.businessId, owner.livemode]);
    if (!locked.length) throw new DomainError('event_not_found');
    const latest = await tx.execute<{ id: string; status: string }[]>(
      `select distinct on (d.endpoint_id) d.id, d.status
       from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
       where d.event_id = ? and w.enabled and w.deleted_at is null
       order by d.endpoint_id, d.generation desc`,
      [id],
    );
    const failed = latest.filter((row) => row.status === 'failed').map((row) => row.id);
    sources = failed.length ? await tx.find(WebhookDelivery, { id: { $in: failed } }) : [];
  } else if (id.startsWith('whd_')) {
    const delivery = await tx.findOne(WebhookDelivery, { id, ...owner });
    if (!delivery) throw new DomainError('event_not_found');
    // Retention deletes an event with its deliveries under the event's row lock: once this lock is held
    // the event stays, but it may have gone between the read above and the lock (the new delivery's
    // insert would then break its foreign key, a 500). Gone is not found.
    const locked = await tx.execute('select id from events where id = ? for update', [delivery.eventId]);
    if (!locked.length) throw new DomainError('event_not_found');
    const endpoint = await tx.findOne(WebhookEndpoint, { id: delivery.endpointId, deletedAt: null });
    if (!endpoint) throw new DomainError('webhook_endpoint_not_found');
    if (!endpoint.enabled) throw new DomainError('webhook_endpoint_disabled');
    sources = [delivery];
  } else {
    throw new DomainError('event_not_found');
  }

  const now = new Date();
  const created: WebhookDelivery[] = [];
  const outbox: OutboxEntry[] = [];
  for (const source of sources) {
    const [{ max }] = await tx.execute<{ max: number }[]>(
      'select max(generation)::int as max from webhook_deliveries where event_id = ? and endpoint_id = ?',
      [source.eventId, source.endpointId],
    );
    const { eventId, eventCreatedAt, endpointId, businessId, livemode, body } = source;
    const delivery = newDelivery(tx, { eventId, eventCreatedAt, endpointId, businessId, livemode, body }, max + 1, now);
    created.push(delivery);
    // Claimed for the caller's fast path (`afterCommit`).
    outbox.push(claimForFastPath(tx.create(OutboxEntry, { message: deliveryWorkflowStart(delivery, opts.retryDelaysMs), createdAt: now })));
  }
  await tx.flush();
  return { deliveries: created, outbox };
}
