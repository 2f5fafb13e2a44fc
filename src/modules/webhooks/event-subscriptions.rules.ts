import { EVENT_TYPES, type EventType } from '../events/index.js';

/**
 * The spec's conflict: examples subscribe to `checkout.completed` and `withdrawal.completed`, the event
 * table names `checkout.succeeded` and `withdrawal.paid`. Both spellings subscribe; the event sent is
 * always the canonical one.
 */
export const EVENT_ALIASES = {
  'checkout.completed': 'checkout.succeeded',
  'withdrawal.completed': 'withdrawal.paid',
} as const satisfies Record<string, EventType>;

export const WILDCARD = '*';

/** Sent only by `POST /api/webhooks/:id/test`, to the one endpoint named: nobody subscribes to it. */
export const TEST_EVENT_TYPE = 'webhook.test' satisfies EventType;

/** The event types that fan out to subscribers (every type but the test ping). */
export const SUBSCRIBABLE_TYPES = EVENT_TYPES.filter((type) => type !== TEST_EVENT_TYPE);

/** Everything an endpoint may list in `events`. */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [WILDCARD, ...SUBSCRIBABLE_TYPES, ...Object.keys(EVENT_ALIASES)];

/** The canonical type a name stands for, or null for `*` and unknown names. */
export function canonicalEventType(name: string): EventType | null {
  if ((EVENT_TYPES as readonly string[]).includes(name)) return name as EventType;
  return (EVENT_ALIASES as Record<string, EventType>)[name] ?? null;
}

/** Whether an endpoint subscribed to `subscription` receives an event of `type`. */
export function subscribesTo(subscription: readonly string[], type: EventType): boolean {
  if (type === TEST_EVENT_TYPE) return false;
  return subscription.some((name) => name === WILDCARD || canonicalEventType(name) === type);
}
