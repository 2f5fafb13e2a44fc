import type { CheckoutSession } from '../checkout/index.js';

/**
 * How long a paid session's page keeps showing the customer's e-mail and the card's brand and last four:
 * a day, time enough for the customer to come back to the receipt (a refresh, the success redirect, the
 * link in the browser's history), while a link that leaked later (the success URL carries the id into
 * the merchant's logs and analytics) shows only the amount, the business and the reference.
 */
export const CUSTOMER_DETAILS_SHOWN_MS = 24 * 3600 * 1000;

/** Whether the page may still show who paid and with what card: until a day after the payment. */
export function showsCustomerDetails(session: Pick<CheckoutSession, 'completedAt' | 'updatedAt'>, now: Date): boolean {
  const paidAt = session.completedAt ?? session.updatedAt;
  return now.getTime() - paidAt.getTime() < CUSTOMER_DETAILS_SHOWN_MS;
}
