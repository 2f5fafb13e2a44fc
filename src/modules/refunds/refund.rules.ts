import { lines, type PostingLine } from '../ledger/index.js';

/**
 * Where a refund's money comes from: `available` first, then what the reserves still hold. Null when
 * the two together fall short ("Insufficient balance for refund"). An `available` below zero (a
 * chargeback left the business owing) gives nothing and takes nothing: only a chargeback may deepen it.
 */
export function refundFunding(
  amount: number,
  funds: { available: number; heldInReserves: number },
): { fromAvailable: number; fromReserves: number } | null {
  const available = Math.max(funds.available, 0);
  if (available + funds.heldInReserves < amount) return null;
  const fromAvailable = Math.min(available, amount);
  return { fromAvailable, fromReserves: amount - fromAvailable };
}

/**
 * A failed refund's posting: out of `refunds_in_flight`, the reserves' shares back to `reserved` and the
 * rest (what came from `available`, or from reserves before their shares were recorded) to `available`.
 * A refund that fails after it completed (the acquirer says so later) had already left for
 * `processor_clearing`, and comes back from there: the acquirer returns it to the platform's account.
 */
export function refundFailedLines(amount: number, toReserves: number, from: 'refunds_in_flight' | 'processor_clearing' = 'refunds_in_flight'): PostingLine[] {
  if (toReserves < 0 || toReserves > amount) throw new RangeError(`reserve shares ${toReserves} do not fit in the refund's ${amount}`);
  return lines(
    { account: from, amount: -amount },
    { account: 'reserved', amount: toReserves },
    { account: 'available', amount: amount - toReserves },
  );
}
