import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { cents, prefixedId, timestamp } from '../envelope.js';
import type { EventType } from '../../modules/events/event.entity.js';
import { REFUND_STATUSES } from '../../modules/refunds/refund.entity.js';
import { DISPUTE_REASONS, DISPUTE_STATUSES } from '../../modules/disputes/dispute.entity.js';

/**
 * The webhook events, as OpenAPI 3.1 `webhooks`: one entry and one schema per event type, describing the
 * body `deliveryBody` (src/modules/webhooks/delivery.view.ts) posts. The merchant kit's event types are
 * generated from these (packages/webhooks), and its end-to-end test checks real deliveries against them.
 */
const decimals = () => z.string().regex(/^\d+\.\d{2}$/).meta({ example: '46.58' });
const currency = () => z.string().meta({ example: 'USD' });
const nullableText = () => z.string().nullable();

const shipping = z.object({ addressLine1: z.string(), city: z.string(), state: z.string(), postalCode: z.string(), country: z.string() }).strict();

/** `refund.*` share the spec's `refund.created` shape (src/modules/refunds/refund.events.ts). */
const refundPayload = (extra: z.ZodRawShape) =>
  z.object({ refundId: prefixedId('ref'), sessionId: z.uuid(), amount: cents(), reason: nullableText(), status: z.enum(REFUND_STATUSES), ...extra, timestamp: timestamp() });

/** src/modules/withdrawals/withdrawal.events.ts: a paid one names its transaction id or hash, by destination. */
const withdrawalPayload = (status: 'completed' | 'failed', extra: z.ZodRawShape) =>
  z.object({
    withdrawalId: prefixedId('wd'),
    amount: cents(),
    amountInDecimals: decimals(),
    currency: currency(),
    destinationType: z.enum(['wallet', 'crypto']),
    status: z.literal(status),
    ...extra,
    timestamp: timestamp(),
  });

/** `dispute.*` all carry the dispute's state at the event (src/modules/disputes/dispute.rules.ts). */
const disputePayload = () =>
  z.object({
    disputeId: prefixedId('dsp'),
    checkoutSessionId: z.uuid(),
    status: z.enum(DISPUTE_STATUSES),
    reason: z.enum(DISPUTE_REASONS),
    amountInCents: cents(),
    evidenceDueBy: timestamp(),
  });

/** One payload schema per event type: a new event type fails the type-check until it is described here. */
const payloads = {
  'checkout.succeeded': z.object({
    sessionId: z.uuid(),
    amount: cents(),
    amountInDecimals: decimals(),
    currency: currency(),
    customerEmail: z.string(),
    customerName: nullableText(),
    timestamp: timestamp(),
    shipping: shipping.nullable(),
  }),
  'checkout.failed': z.object({
    sessionId: z.uuid(),
    amount: cents(),
    currency: currency(),
    customerEmail: z.string(),
    failureCode: z.string(),
    failureMessage: z.string(),
    timestamp: timestamp(),
  }),
  'refund.created': refundPayload({}),
  'refund.completed': refundPayload({ processorRefundId: nullableText() }),
  'refund.failed': refundPayload({ failureReason: nullableText() }),
  'withdrawal.paid': withdrawalPayload('completed', { processorTransactionId: nullableText().optional(), transactionHash: nullableText().optional() }),
  'withdrawal.failed': withdrawalPayload('failed', { failureReason: nullableText() }),
  'dispute.created': disputePayload(),
  'dispute.updated': disputePayload(),
  'dispute.evidence_due_soon': disputePayload(),
  'dispute.funds_withdrawn': disputePayload(),
  'dispute.funds_reinstated': disputePayload(),
  'dispute.closed': disputePayload(),
  // Sent to an endpoint's other subscribed endpoints when it is disabled for failing (docs/decisions.md, Webhooks).
  'webhook_endpoint.disabled': z.object({ endpointId: prefixedId('wh'), url: z.string(), reason: z.enum(['failing']), disabledAt: timestamp() }),
  // Only `POST /api/webhooks/{id}/test` sends it, to that endpoint alone (its body also carries `test: true`).
  'webhook.test': z.object({ endpointId: prefixedId('wh'), message: z.string(), timestamp: timestamp() }),
} satisfies Record<EventType, z.ZodObject>;

/** `checkout.succeeded` → `CheckoutSucceededEvent`. */
const schemaName = (type: string) => `${type.split(/[._]/).map((w) => w[0].toUpperCase() + w.slice(1)).join('')}Event`;

function eventSchema(type: string, payload: z.ZodObject) {
  const strictPayload = payload.strict();
  return z
    .object({
      id: prefixedId('evt'),
      eventId: prefixedId('evt').meta({ description: 'Same as `id`: de-duplicate deliveries on it.' }),
      eventType: z.literal(type),
      type: z.literal(type).meta({ description: 'Same as `eventType`.' }),
      createdAt: timestamp(),
      livemode: z.boolean(),
      payload: strictPayload,
      data: strictPayload.meta({ description: 'Same as `payload`.' }),
      test: z.literal(true).optional().meta({ description: 'Present only on a test event (`POST /api/webhooks/{id}/test`).' }),
    })
    .strict()
    .meta({ id: schemaName(type), description: `The body of a \`${type}\` delivery.` });
}

export const eventWebhooks: ZodOpenApiPathsObject = Object.fromEntries(
  Object.entries(payloads).map(([type, payload]) => [
    type,
    {
      post: {
        operationId: `${schemaName(type)[0].toLowerCase()}${schemaName(type).slice(1)}`,
        tags: ['Webhooks'],
        summary: `\`${type}\``,
        description:
          'POSTed to each enabled endpoint subscribed to the event, signed in `X-Webhook-Signature: t=<unix>,v1=<hex>` (one `v1` per secret during a rotation). Verify it against the raw body before parsing.',
        requestParams: {
          header: z.object({
            'X-Webhook-Signature': z.string().meta({ example: 't=1763717400,v1=5257a869…' }),
            'X-Webhook-Id': z.string().meta({ description: 'The event id (`evt_…`), the same on every delivery of the event.', example: 'evt_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e' }),
            'X-Webhook-Delivery-Id': z
              .string()
              .meta({ description: 'This delivery (`whd_…`): `POST /api/webhooks/retry/{id}` sends it again, as a new delivery.', example: 'whd_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e' }),
            'X-Webhook-Timestamp': z.string().meta({ description: 'The signature\'s `t`, in Unix seconds.', example: '1763717400' }),
          }),
        },
        requestBody: { required: true, content: { 'application/json': { schema: eventSchema(type, payload) } } },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery; anything else (or no answer in time) is retried on the schedule.' },
        },
      },
    },
  ]),
);
