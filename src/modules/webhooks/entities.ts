import { WebhookEndpoint, WebhookDelivery, WebhookAttempt } from './webhook.entity.js';

/** This module's MikroORM entities, for the composition root (src/main/database.ts) to register. */
export const webhooksEntities = [WebhookEndpoint, WebhookDelivery, WebhookAttempt];
