import type { webhooks } from './generated/events.js';

/** Every event type the service sends, e.g. `'checkout.succeeded'`. */
export type WebhookEventType = keyof webhooks;

type Body<T> = T extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** The body of one event type: `WebhookEventOf<'refund.completed'>['payload'].processorRefundId`. */
export type WebhookEventOf<T extends WebhookEventType> = Body<webhooks[T]['post']>;

/** Any event: narrow it with `switch (event.type)`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

export type CheckoutSucceededEvent = WebhookEventOf<'checkout.succeeded'>;
export type CheckoutFailedEvent = WebhookEventOf<'checkout.failed'>;
export type RefundCreatedEvent = WebhookEventOf<'refund.created'>;
export type RefundCompletedEvent = WebhookEventOf<'refund.completed'>;
export type RefundFailedEvent = WebhookEventOf<'refund.failed'>;
export type WithdrawalPaidEvent = WebhookEventOf<'withdrawal.paid'>;
export type WithdrawalFailedEvent = WebhookEventOf<'withdrawal.failed'>;
export type DisputeCreatedEvent = WebhookEventOf<'dispute.created'>;
export type DisputeUpdatedEvent = WebhookEventOf<'dispute.updated'>;
export type DisputeEvidenceDueSoonEvent = WebhookEventOf<'dispute.evidence_due_soon'>;
export type DisputeFundsWithdrawnEvent = WebhookEventOf<'dispute.funds_withdrawn'>;
export type DisputeFundsReinstatedEvent = WebhookEventOf<'dispute.funds_reinstated'>;
export type DisputeClosedEvent = WebhookEventOf<'dispute.closed'>;
