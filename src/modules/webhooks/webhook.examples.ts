import type { EndpointResource } from './webhook.schemas.js';

/** A webhook endpoint as the API document shows it, typed by its response schema. */
const T = '2026-11-21T09:30:00.000Z';

export const endpointExample: EndpointResource = {
  id: 'wh_0190f4c2a7e07b3c9d1e2f3a4b5c6d40',
  url: 'https://shop.example.com/webhooks/payments',
  events: ['checkout.succeeded', 'refund.completed'],
  enabled: true,
  isActive: true,
  description: 'Order fulfilment',
  livemode: false,
  disabledReason: null,
  disabledAt: null,
  rateLimitPerSecond: null,
  createdAt: T,
  updatedAt: T,
};
