/**
 * contracts/: what workflows and activities both need (failure types, search attributes, shared result
 * types), outside both so neither imports the other's values. Workflow code imports it, so it stays
 * deterministic: no Node built-ins, no I/O, nothing from src/ (ESLint enforces this).
 */
/** How a webhook delivery ended: the delivery workflow's result, which the failing activity also reports. */
export type WebhookDeliveryResult = 'succeeded' | 'failed' | 'stopped';

/**
 * One paced attempt (`sendWebhookAttempt`): `wait` when the endpoint's turn is still ahead (nothing was
 * sent or counted); a failure carries the receiver's Retry-After, when it gave one, for the next wait.
 */
export type WebhookAttemptResult =
  | { outcome: 'succeeded' | 'stopped' }
  | { outcome: 'failed'; retryAfterMs: number | null }
  | { outcome: 'wait'; waitMs: number };
