/**
 * contracts/: what workflows and activities both need (failure types, search attributes, shared result
 * types), outside both so neither imports the other's values. Workflow code imports it, so it stays
 * deterministic: no Node built-ins, no I/O, nothing from src/ (ESLint enforces this).
 */
/** How a webhook delivery ended: the delivery workflow's result, which the failing activity also reports. */
export type WebhookDeliveryResult = 'succeeded' | 'failed' | 'stopped';
