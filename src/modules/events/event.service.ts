import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids.js';
import { OutboxEntry } from '../outbox/index.js';
import { Event, type EventType } from './event.entity.js';

/**
 * Records an event and its fan-out in the caller's transaction, so the event exists exactly when the
 * change it reports does. Delivery is the outbox's job.
 */
export function recordEvent(
  em: EntityManager,
  owner: { businessId: string; livemode: boolean },
  type: EventType,
  payload: Record<string, unknown>,
  at: Date = new Date(),
): Event {
  const event = em.create(Event, { id: newId('evt'), ...owner, type, payload, createdAt: at });
  // The business and the instant group the events of one move, fanned out one after another, in order.
  em.create(OutboxEntry, { message: { kind: 'event.fanout', eventId: event.id, businessId: owner.businessId }, createdAt: at });
  return event;
}
