import type { WebhookEndpoint } from './webhook.entity.js';
import type { EndpointResource } from './webhook.schemas.js';

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
