import { applyRate, centsToDecimalString } from '../../domain/money.js';
import { lines, type PostingLine } from '../ledger/index.js';
import type { ShippingAddress } from './session.entity.js';

export interface PaymentSplit {
  total: number;
  fee: number;
  reserve: number;
  available: number;
}

/**
 * Where a payment's money goes: the customer pays `total`; the fee goes to fee revenue; reserve =
 * round-half-up(subtotal × reserve %) is held; the rest of the subtotal is available.
 */
export function paymentSplit(session: { subtotal: number; fee: number; total: number }, reserveBps: number): PaymentSplit {
  const reserve = applyRate(session.subtotal, reserveBps);
  return { total: session.total, fee: session.fee, reserve, available: session.subtotal - reserve };
}

/** The payment's ledger transaction: processor clearing gives `total`, the three shares receive it. */
export function paymentLines(split: PaymentSplit): PostingLine[] {
  return lines(
    { account: 'processor_clearing', amount: -split.total },
    { account: 'fee_revenue', amount: split.fee },
    { account: 'reserved', amount: split.reserve },
    { account: 'available', amount: split.available },
  );
}

interface PaidSession {
  id: string;
  total: number;
  currency: string;
  customerEmail: string;
  customerName?: string | null;
  shipping?: ShippingAddress | null;
}

/** `checkout.succeeded`, exactly the spec's payload; its shipping object has the spec's five keys. */
export function checkoutSucceededPayload(session: PaidSession, at: Date) {
  const shipping = session.shipping;
  return {
    sessionId: session.id,
    amount: session.total,
    amountInDecimals: centsToDecimalString(session.total),
    currency: session.currency,
    customerEmail: session.customerEmail,
    customerName: session.customerName ?? null,
    timestamp: at.toISOString(),
    shipping: shipping
      ? { addressLine1: shipping.addressLine1, city: shipping.city, state: shipping.state, postalCode: shipping.postalCode, country: shipping.country }
      : null,
  };
}

/** `checkout.failed`: the payload. */
export function checkoutFailedPayload(session: PaidSession, failure: { code: string; message: string }, at: Date) {
  return {
    sessionId: session.id,
    amount: session.total,
    currency: session.currency,
    customerEmail: session.customerEmail,
    failureCode: failure.code,
    failureMessage: failure.message,
    timestamp: at.toISOString(),
  };
}
