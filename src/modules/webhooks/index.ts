/**
 * What other code uses of the webhooks module (endpoints, deliveries, their fan-out, signing and retries):
 * the rest is the module's own, and eslint.config.js refuses an import of it from outside
 * (docs/architecture.md, "A module's face").
 */
export { createDeliveryAttempts } from './delivery-attempt.service.js';
export type { AttemptInput, WebhookSendDeps } from './delivery-send.service.js';
export { createWebhookTransport } from './delivery.transport.js';
export type { PostOutcome, WebhookTransport } from './delivery.transport.js';
export { webhooksEntities } from './entities.js';
export { createEventFanout } from './fanout.service.js';
export { createFirstAttempts } from './first-attempts.service.js';
export type { FirstAttempts } from './first-attempts.service.js';
export { generateWebhookSecret, sealSecret, webhookEncryptionKey } from './secret-box.crypto.js';
export { webhookEventsMethodGuard, webhookOperations } from './webhook.routes.js';
export { webhookEventPayloads } from './webhook.schemas.js';
