import type { ReserveResource } from './reserve.schemas.js';

/** A reserve as the API document shows it, typed by its response schema. */
const T2 = '2026-11-21T09:31:12.000Z';

export const reserveExample: ReserveResource = {
  id: 'res_0190f4c2a7e07b3c9d1e2f3a4b5c6d20',
  // The example session's id (checkout/session.examples.ts), so the document's examples tell one story;
  // written out, as reserves sit below checkout (test/http/openapi-file.test.ts holds the two equal).
  paymentId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e',
  originalAmountInCents: 5072,
  reserveAmountInCents: 507,
  reservePercentage: 10,
  status: 'active',
  releasedAmountInCents: 0,
  releaseAt: '2027-02-19T09:31:12.000Z',
  releasedAt: null,
  reservedAt: T2,
};
