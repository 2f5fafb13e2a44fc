import type { z } from 'zod';
import type { Event } from '../events/index.js';
import type { WebhookAttempt, WebhookDelivery } from './webhook.entity.js';
import type { attemptResource, DeliveryResource } from './webhook.schemas.js';

/**
 * The body every endpoint receives for an event. Both handler styles in the spec work: `eventType` and
 * `payload`, or `type` and `data`. Built once when a delivery is created and stored on it, so each attempt
 * (and each manual retry) sends the same bytes. `sequence` orders a record's events as they happened
 * (deliveries may arrive in any order, retries later still); `createdAt` is when, by the clock of the
 * host that recorded it.
 */
export function deliveryBody(event: Pick<Event, 'id' | 'type' | 'createdAt' | 'livemode' | 'payload'> & { sequence: number; test?: boolean }): string {
  return JSON.stringify({
    id: event.id,
    eventId: event.id,
    eventType: event.type,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    sequence: event.sequence,
    livemode: event.livemode,
    payload: event.payload,
    data: event.payload,
    // Only a test ping says so, so a receiver can tell it from a real event; real bodies are unchanged.
    ...(event.test ? { test: true } : {}),
  });
}

/** One attempt of a delivery: what the endpoint answered, or why nothing came back. */
export function attemptView(attempt: WebhookAttempt): z.output<typeof attemptResource> {
  return {
    attemptNumber: attempt.attemptNumber,
    attemptedAt: attempt.attemptedAt.toISOString(),
    statusCode: attempt.statusCode ?? null,
    durationMs: attempt.durationMs,
    responseBody: attempt.responseBody ?? null,
    error: attempt.error ?? null,
    succeeded: attempt.succeeded,
  };
}

/** A delivery as the event log and the delivery routes show it, with its attempts when asked for. */
export function deliveryView(delivery: WebhookDelivery, attempts?: WebhookAttempt[]): DeliveryResource {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    endpointId: delivery.endpointId,
    status: delivery.status,
    generation: delivery.generation,
    attemptCount: delivery.attemptCount,
    lastStatusCode: delivery.lastStatusCode ?? null,
    lastError: delivery.lastError ?? null,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    createdAt: delivery.createdAt.toISOString(),
    updatedAt: delivery.updatedAt.toISOString(),
    completedAt: delivery.completedAt?.toISOString() ?? null,
    ...(attempts ? { attempts: attempts.map(attemptView) } : {}),
  };
}
