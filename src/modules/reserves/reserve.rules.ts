import type { ReserveStatus } from './reserve.entity.js';
import type { ReserveConfigResource } from './reserve.schemas.js';

/** The three amounts a reserve's state is made of. */
export interface ReserveAmounts {
  reserveAmountInCents: number;
  consumedAmountInCents: number;
  releasedAmountInCents: number;
}

/** What the reserve still holds: first held, less what refunds consumed and the timer released. */
export const heldOf = (r: ReserveAmounts): number => r.reserveAmountInCents - r.consumedAmountInCents - r.releasedAmountInCents;

/**
 * The status that follows from the amounts: nothing gone is `active`; some gone and the rest still
 * locked is `partially_released`; all consumed is `consumed`; otherwise the timer released what was left.
 * (Some released and some still held happens only for a moment: a failed refund gave a share back to a
 * reserve already released, and its release workflow is about to release that share too.)
 */
export function reserveStatusOf(r: ReserveAmounts): ReserveStatus {
  const held = heldOf(r);
  if (held > 0) return r.consumedAmountInCents > 0 || r.releasedAmountInCents > 0 ? 'partially_released' : 'active';
  return r.releasedAmountInCents > 0 ? 'released' : 'consumed';
}


/**
 * The ledger reference of a reserve's release. Its first release is referenced by the reserve id; a
 * later one (of a share a failed refund gave back after the release) by `<id>#<cents released before
 * it>`. What a reserve has released only grows, so each reference is unique by (kind, reference), is
 * known from the reserve row alone (no query under the balance lock), and `ledger verify` finds them all.
 */
export const releaseReference = (reserveId: string, releasedBefore: number): string =>
  releasedBefore === 0 ? reserveId : `${reserveId}#${releasedBefore}`;

/**
 * Takes up to `amount` from reserves, oldest first. Returns how much each gives and the total, which is
 * less than `amount` when the reserves hold less.
 */
export function planConsumption<R extends ReserveAmounts & { id: string }>(
  reserves: R[],
  amount: number,
): { parts: { reserveId: string; amount: number }[]; taken: number } {
  const parts: { reserveId: string; amount: number }[] = [];
  let remaining = amount;
  for (const reserve of reserves) {
    if (remaining <= 0) break;
    const take = Math.min(heldOf(reserve), remaining);
    if (take <= 0) continue;
    parts.push({ reserveId: reserve.id, amount: take });
    remaining -= take;
  }
  return { parts, taken: amount - remaining };
}

const DAY_MS = 24 * 3600 * 1000;

/** A hold period as an ISO 8601 duration: 90 days is `P90D`, 10 seconds `PT10S`, 1.5 days `P1DT12H`. */
export function isoDuration(ms: number): string {
  if (ms <= 0) return 'PT0S';
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  return `P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
}

/** `GET /api/reserves/config` from the business's terms. */
export function reserveConfigView(business: { reserveBps: number; reserveHoldMs: number }): ReserveConfigResource {
  return {
    enabled: business.reserveBps > 0,
    reservePercentage: business.reserveBps / 100,
    holdPeriodDays: business.reserveHoldMs / DAY_MS,
    holdPeriod: isoDuration(business.reserveHoldMs),
  };
}
