import type { z } from 'zod';
import type { sessionItemResource, SessionListItemResource, SessionResource } from '../../modules/checkout/session.schemas.js';
import type { RefundResource } from '../../modules/refunds/refund.schemas.js';
import type { ReserveResource } from '../../modules/reserves/reserve.schemas.js';
import type { EndpointResource } from '../../modules/webhooks/webhook.schemas.js';
import type { WithdrawalResource } from '../../modules/withdrawals/withdrawal.schemas.js';

/**
 * Example resources for the document, typed by the response schemas (so they cannot lose a field) and
 * validated against the generated document by a unit test (so their formats hold too).
 */
const T = '2026-11-21T09:30:00.000Z';
const T2 = '2026-11-21T09:31:12.000Z';
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

export const pageMetaExample = { total: 1, page: 1, limit: 20, totalPages: 1, hasNextPage: false, hasPreviousPage: false };

export const refundExample: RefundResource = {
  id: 'ref_0190f4c2a7e07b3c9d1e2f3a4b5c6d10',
  checkoutSessionId: SESSION_ID,
  amountInCents: 5072,
  reason: 'Customer returned the order',
  status: 'pending',
  livemode: false,
  createdAt: T2,
  requestedAt: T2,
};

export const reserveExample: ReserveResource = {
  id: 'res_0190f4c2a7e07b3c9d1e2f3a4b5c6d20',
  paymentId: SESSION_ID,
  originalAmountInCents: 5072,
  reserveAmountInCents: 507,
  reservePercentage: 10,
  status: 'active',
  releasedAmountInCents: 0,
  releaseAt: '2027-02-19T09:31:12.000Z',
  releasedAt: null,
  reservedAt: T2,
};

export const withdrawalExample: WithdrawalResource = {
  id: 'wd_0190f4c2a7e07b3c9d1e2f3a4b5c6d30',
  amountInCents: 12550,
  status: 'completed',
  destinationType: 'wallet',
  destinationDetails: '{"walletEmail":"payouts@example.com"}',
  livemode: false,
  requestedAt: T,
  updatedAt: T2,
  completedAt: T2,
  processorTransactionId: 'po_sim_0190f4c2a7e07b3c',
};

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
