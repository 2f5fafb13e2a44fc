import type { z } from 'zod';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './webhook.entity.js';
import type { attemptResource, DeliveryResource, EndpointResource } from './webhook.schemas.js';

/**
 * The endpoint as every response shows it. The spec's conflict: create shows `enabled`, update `isActive`;
 * both name the same switch and both are always present. The secret is never part of it.
 */
export function endpointView(endpoint: WebhookEndpoint): EndpointResource {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    enabled: endpoint.enabled,
    isActive: endpoint.enabled,
    description: endpoint.description ?? null,
    livemode: endpoint.livemode,
    disabledReason: endpoint.enabled ? null : (endpoint.disabledReason ?? 'manual'),
    disabledAt: endpoint.enabled ? null : (endpoint.disabledAt ?? endpoint.updatedAt).toISOString(),
    rateLimitPerSecond: endpoint.rateLimitPerSecond ?? null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

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
