import { sessionExample } from '../checkout/index.js';
import type { RefundResource } from './refund.schemas.js';

/** A refund as the API document shows it, typed by its response schema. */
const T2 = '2026-11-21T09:31:12.000Z';

export const refundExample: RefundResource = {
  id: 'ref_0190f4c2a7e07b3c9d1e2f3a4b5c6d10',
  checkoutSessionId: sessionExample.id,
  amountInCents: 5072,
  reason: 'Customer returned the order',
  status: 'pending',
  livemode: false,
  createdAt: T2,
  requestedAt: T2,
};
