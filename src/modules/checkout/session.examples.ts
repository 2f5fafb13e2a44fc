import type { z } from 'zod';
import type { sessionItemResource, SessionListItemResource, SessionResource } from './session.schemas.js';

/**
 * The session as the API document shows it, typed by its response schemas (so an example cannot lose a
 * field) and checked against the generated document by its tests.
 */
const T = '2026-11-21T09:30:00.000Z';
const SESSION_ID = '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e';

const item: z.output<typeof sessionItemResource> = {
  id: 'item_0190f4c2a7e07b3c9d1e2f3a4b5c6d80',
  sessionId: SESSION_ID,
  name: 'Espresso beans, 1 kg',
  description: 'Single origin',
  price: 2450,
  quantity: 2,
  imageUrl: 'https://shop.example.com/img/beans.png',
  subtotal: 4900,
};

export const sessionExample: SessionResource = {
  id: SESSION_ID,
  businessId: 'biz_0190f4c2a7e07b3c9d1e2f3a4b5c6d01',
  userId: 'key_0190f4c2a7e07b3c9d1e2f3a4b5c6d02',
  status: 'pending',
  currency: 'USD',
  subtotal: 4900,
  fee: 172,
  total: 5072,
  description: 'Order A-1001',
  customerEmail: 'ada@example.com',
  askShipping: true,
  successUrl: 'https://shop.example.com/thanks',
  cancelUrl: 'https://shop.example.com/cart',
  failureUrl: null,
  checkoutUrl: `https://pay.example.com/checkout/${SESSION_ID}`,
  metadata: { orderId: 'A-1001' },
  livemode: false,
  items: [item],
  expiresAt: '2026-11-22T09:30:00.000Z',
  createdAt: T,
  updatedAt: T,
  completedAt: null,
  disputeId: null,
};

export const sessionListItemExample: SessionListItemResource = {
  id: SESSION_ID,
  total: 5072,
  amountInCents: 5072,
  currency: 'USD',
  status: 'completed',
  checkoutUrl: sessionExample.checkoutUrl,
  customerEmail: 'ada@example.com',
  metadata: { orderId: 'A-1001' },
  createdAt: T,
};
