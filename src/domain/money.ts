/**
 * Money is integer cents from the moment a request is parsed. Dollars become cents exactly once, here,
 * and a value with more than two decimals is rejected, never rounded.
 */

/** Cents for a dollar amount given as a JSON number, or null when it has more than two decimals. */
export function dollarsToCents(dollars: number): number | null {
  if (!Number.isFinite(dollars)) return null;
  // The shortest round-trip decimal form of the double is what the client wrote (19.99, not 19.989999…).
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(dollars));
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) return null;
  return sign ? -cents : cents;
}


/** Decimal dollars as text (`1234` → `"12.34"`), for payloads that the spec gives in decimals. */
export function centsToDecimalString(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Basis points: 1 % = 100 bps. Rates are stored as integers so that no float touches money. */
export const BPS_PER_UNIT = 10_000;

/** round-half-up(amount × bps / 10 000), in integer arithmetic. */
export function applyRate(amountCents: number, bps: number): number {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) throw new RangeError('amount must be non-negative cents');
  if (!Number.isInteger(bps) || bps < 0 || bps > BPS_PER_UNIT) throw new RangeError('rate must be 0..10000 bps');
  const product = amountCents * bps;
  if (!Number.isSafeInteger(product)) throw new RangeError('amount too large for exact arithmetic');
  return Math.floor((product + BPS_PER_UNIT / 2) / BPS_PER_UNIT);
}

/** A percent such as 2.9 as basis points (290); null when it has more than two decimals. */
export function percentToBps(percent: number): number | null {
  return dollarsToCents(percent);
}

