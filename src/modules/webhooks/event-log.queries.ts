import type { EntityManager } from '@mikro-orm/postgresql';
import { pageMeta } from '../../domain/cursor.js';
import type { Caller } from '../businesses/index.js';
import { Event } from '../events/index.js';
import { pageIds, cappedTotal, countedTotal } from '../lists/index.js';
import { WebhookAttempt, WebhookDelivery } from './webhook.entity.js';
import type { EventLogEntryResource, EventLogQuery } from './webhook.schemas.js';
import { deliveryView } from './delivery.view.js';

/**
 * `GET /api/webhooks/events`: the caller's events, newest first, each with its deliveries and their
 * attempts. The total comes from the counters of events by type unless a filter they do not keep is
 * given; the page's events are read by id (lists/page.queries.ts). `endpointId` and `status` select the events that have such a delivery, and the deliveries
 * shown are those that match, so a filtered log reads as an answer to the question asked.
 */
export async function listEventLog(em: EntityManager, caller: Caller, query: EventLogQuery) {
  const where = ['e.business_id = ?', 'e.livemode = ?'];
  const params: unknown[] = [caller.businessId, caller.livemode];
  const add = (conditions: string[], values: unknown[], sql: string, value: unknown) => {
    conditions.push(sql);
    values.push(value);
  };
  if (query.eventType) add(where, params, 'e.type = ?', query.eventType);
  if (query.from) add(where, params, 'e.created_at >= ?', new Date(query.from));
  if (query.to) add(where, params, 'e.created_at < ?', new Date(query.to));
  const deliveryWhere: string[] = [];
  const deliveryParams: unknown[] = [];
  if (query.endpointId) add(deliveryWhere, deliveryParams, 'd.endpoint_id = ?', query.endpointId);
  if (query.status) add(deliveryWhere, deliveryParams, 'd.status = ?', query.status);
  if (deliveryWhere.length) {
    where.push(`exists (select 1 from webhook_deliveries d where d.event_id = e.id and ${deliveryWhere.join(' and ')})`);
    params.push(...deliveryParams);
  }
  const filter = { sql: where.join(' and '), params };
  // The counters keep events by type; a date range or a delivery's endpoint or status is counted, capped.
  const counted = !query.from && !query.to && !deliveryWhere.length;
  const total = counted
    ? countedTotal(em, caller, 'event', query.eventType ? [query.eventType] : undefined)
    : cappedTotal(em, `select 1 from events e where ${filter.sql}`, filter.params);
  const { ids, hasNextPage } = await pageIds(em, { table: 'events e', filter, orderBy: 'e.created_at desc, e.id desc' }, query.page, query.limit, total);
  const events = ids.length ? await em.find(Event, { id: { $in: ids } }, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }) : [];
  const deliveries = ids.length
    ? await em.find(
        WebhookDelivery,
        {
          eventId: { $in: ids },
          ...(query.endpointId ? { endpointId: query.endpointId } : {}),
          ...(query.status ? { status: query.status } : {}),
        },
        { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
      )
    : [];
  const attempts = deliveries.length
    ? await em.find(WebhookAttempt, { deliveryId: { $in: deliveries.map((d) => d.id) } }, { orderBy: { attemptNumber: 'asc' } })
    : [];

  const items = events.map((event): EventLogEntryResource => ({
    id: event.id,
    eventType: event.type,
    type: event.type,
    livemode: event.livemode,
    test: event.test ?? false,
    createdAt: event.createdAt.toISOString(),
    payload: event.payload,
    deliveries: deliveries
      .filter((d) => d.eventId === event.id)
      .map((d) => deliveryView(d, attempts.filter((a) => a.deliveryId === d.id))),
  }));
  return { items, meta: pageMeta(await total, query.page, query.limit, hasNextPage) };
}
