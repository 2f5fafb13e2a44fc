import type { Event } from '../events/event.entity.js';

/**
 * The body every endpoint receives for an event. Both handler styles in the spec work: `eventType` and
 * `payload`, or `type` and `data`. Built once when a delivery is created and stored on it, so each attempt
 * (and each manual retry) sends the same bytes.
 */
export function deliveryBody(event: Pick<Event, 'id' | 'type' | 'createdAt' | 'livemode' | 'payload'> & { test?: boolean }): string {
  return JSON.stringify({
    id: event.id,
    eventId: event.id,
    eventType: event.type,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    livemode: event.livemode,
    payload: event.payload,
    data: event.payload,
    // Only a test ping says so, so a receiver can tell it from a real event; real bodies are unchanged.
    ...(event.test ? { test: true } : {}),
  });
}
