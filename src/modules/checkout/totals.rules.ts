import { applyRate } from '../../domain/money.js';

/** $999,999,999.99: keeps every amount, and sums of many, exact in JavaScript numbers. */
export const MAX_SESSION_SUBTOTAL_CENTS = 99_999_999_999;

export interface FeeConfig {
  feeBps: number;
  feeFixedCents: number;
}

export interface PricedItem {
  price: number;
  quantity: number;
}

export interface SessionTotals {
  itemSubtotals: number[];
  subtotal: number;
  fee: number;
  total: number;
}

/** subtotal = Σ price × quantity; fee = round-half-up(subtotal × fee %) + fixed fee; total = subtotal + fee. */
export function sessionTotals(items: PricedItem[], fees: FeeConfig): SessionTotals {
  const itemSubtotals = items.map((item) => item.price * item.quantity);
  const subtotal = itemSubtotals.reduce((sum, value) => sum + value, 0);
  const fee = applyRate(subtotal, fees.feeBps) + fees.feeFixedCents;
  return { itemSubtotals, subtotal, fee, total: subtotal + fee };
}
