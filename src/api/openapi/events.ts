import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { prefixedId, timestamp } from '../../http/envelope.js';
import { checkoutEventPayloads } from '../../modules/checkout/index.js';
import { disputeEventPayloads } from '../../modules/disputes/index.js';
import type { EventType } from '../../modules/events/index.js';
import { refundEventPayloads } from '../../modules/refunds/index.js';
import { webhookEventPayloads } from '../../modules/webhooks/index.js';
import { withdrawalEventPayloads } from '../../modules/withdrawals/index.js';

/**
 * The webhook events, as OpenAPI 3.1 `webhooks`: one entry and one schema per event type, describing the
 * body `deliveryBody` (src/modules/webhooks/delivery.view.ts) posts. The merchant kit's event types are
 * generated from these (packages/webhooks), and its end-to-end test checks real deliveries against them.
 */
/**
 * One payload schema per event type, each held by the module that records the event: a new event type
 * fails the type-check here until its module describes it.
 */
const payloads = {
  ...checkoutEventPayloads,
  ...refundEventPayloads,
  ...withdrawalEventPayloads,
  ...disputeEventPayloads,
  ...webhookEventPayloads,
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
      createdAt: timestamp().meta({ description: 'When it happened, by the clock of the host that recorded it.' }),
      sequence: z
        .number()
        .int()
        .positive()
        .meta({
          description:
            "Sort a record's events by it: a later event has a larger sequence (a dispute's `dispute.created`, then `dispute.funds_withdrawn`, then its updates; a payment's, then its refund's). Deliveries may arrive in any order, and retries later still; numbers are not contiguous.",
          example: 1042,
        }),
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
