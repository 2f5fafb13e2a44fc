/**
 * Where a refund's money comes from: `available` first, then what the reserves still hold. Null when
 * the two together fall short ("Insufficient balance for refund").
 */
export function refundFunding(
  amount: number,
  funds: { available: number; heldInReserves: number },
): { fromAvailable: number; fromReserves: number } | null {
  if (funds.available + funds.heldInReserves < amount) return null;
  const fromAvailable = Math.min(funds.available, amount);
  return { fromAvailable, fromReserves: amount - fromAvailable };
}
