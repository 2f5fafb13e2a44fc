import { isInquiry, type DisputeStatus, type Outcome } from '../../../contracts/disputes.js';
import { lines, type PostingLine } from '../ledger/index.js';
import { EVIDENCE_FIELDS, type Evidence } from './dispute.entity.js';

export { awaitsResponse, isClosed, type Outcome } from '../../../contracts/disputes.js';

/**
 * The dispute's state machine and its money, as pure functions. An inquiry (`warning_*`) moves no money;
 * a chargeback withdraws its amount and the business's fee when it opens, and gives the amount back only
 * if it is won.
 */

/** A refund of the session is refused while its dispute is open or lost (after `won` or `warning_closed` it is allowed). */
export const BLOCKS_REFUND: readonly DisputeStatus[] = ['needs_response', 'under_review', 'lost', 'warning_needs_response', 'warning_under_review'];

/** Evidence sent: `needs_response` → `under_review`, and the same for an inquiry. */
export const submittedStatus = (status: DisputeStatus): DisputeStatus => (isInquiry(status) ? 'warning_under_review' : 'under_review');
/** Accepted by the merchant, or no evidence by the deadline: a chargeback is lost, an inquiry closes. */
export const acceptedStatus = (status: DisputeStatus): DisputeStatus => (isInquiry(status) ? 'warning_closed' : 'lost');

/**
 * What a decision (the network's or an operator's) does to an open dispute. A chargeback is won (its
 * amount returns) or lost. An inquiry won closes; an inquiry lost escalates to a chargeback with a fresh
 * evidence window, whose funds are withdrawn then.
 */
export function decisionOf(status: DisputeStatus, outcome: Outcome): { status: DisputeStatus; reinstate: boolean; escalate: boolean } {
  if (!isInquiry(status)) return { status: outcome, reinstate: outcome === 'won', escalate: false };
  return outcome === 'won' ? { status: 'warning_closed', reinstate: false, escalate: false } : { status: 'needs_response', reinstate: false, escalate: true };
}

/** How one charge (the disputed amount, or the fee) is paid. */
export interface Split {
  fromAvailable: number;
  fromReserves: number;
  /** What neither could cover: `available` goes that far below zero. */
  owed: number;
}

/**
 * A chargeback's amount, then its fee, each taken from `available` (what is above zero) first, then from
 * what the reserves hold, the rest owed. Taking the amount first and the fee from what it left gives the
 * same totals as taking both at once, and a separate posting (and balance transaction) for each.
 */
export function chargebackFunding(
  amount: number,
  fee: number,
  funds: { available: number; heldInReserves: number },
): { amount: Split; fee: Split; total: Split } {
  const take = (cents: number, available: number, held: number): Split => {
    const fromAvailable = Math.min(Math.max(available, 0), cents);
    const fromReserves = Math.min(held, cents - fromAvailable);
    return { fromAvailable, fromReserves, owed: cents - fromAvailable - fromReserves };
  };
  const first = take(amount, funds.available, funds.heldInReserves);
  const second = take(fee, funds.available - first.fromAvailable, funds.heldInReserves - first.fromReserves);
  return {
    amount: first,
    fee: second,
    total: {
      fromAvailable: first.fromAvailable + second.fromAvailable,
      fromReserves: first.fromReserves + second.fromReserves,
      owed: first.owed + second.owed,
    },
  };
}

/**
 * One part's posting: out of `available` (what it had and what is owed alike) and `reserved`, to the card
 * network (processor clearing: the amount goes back to the cardholder) or to fee revenue (the fee).
 */
export function chargebackLines(split: Split, to: 'processor_clearing' | 'fee_revenue'): PostingLine[] {
  return lines(
    { account: 'available', amount: -(split.fromAvailable + split.owed) },
    { account: 'reserved', amount: -split.fromReserves },
    { account: to, amount: split.fromAvailable + split.fromReserves + split.owed },
  );
}

/**
 * What of a chargeback's amount the reserves paid. The amount was taken before the fee, each from
 * `available` first and then from the reserves (`chargebackFunding`), so from the totals alone: nothing
 * when `available` covered the amount, else the rest of the amount as far as the reserves went.
 */
export function amountFromReserves(d: { amountInCents: number; fromAvailableInCents?: number | null; fromReservesInCents?: number | null }): number {
  if (d.fromAvailableInCents == null || d.fromReservesInCents == null) return 0;
  return Math.min(d.fromReservesInCents, Math.max(0, d.amountInCents - d.fromAvailableInCents));
}

/** One reserve's share of a chargeback, oldest reserve first (the order `consumeReserves` took them in). */
export interface ReserveShare {
  reserveId: string;
  amountInCents: number;
  /** The reserve's release date is still ahead (by the database's clock). */
  holding: boolean;
}

/**
 * Where a won chargeback's amount goes back to. Its reserve-funded part (`amountFromReserves`: the first
 * cents of the shares, oldest reserve first, since the amount was taken before the fee) returns to each
 * reserve it came from whose release date is still ahead, so held money keeps its hold; a share whose
 * reserve is due by now goes to `available`, as its release would have taken it; the rest of the amount
 * came from `available` (or was owed) and returns there.
 */
export function reinstatementPlan(amount: number, fromReserves: number, shares: ReserveShare[]): { toReserves: { reserveId: string; amount: number }[]; toAvailable: number } {
  const toReserves: { reserveId: string; amount: number }[] = [];
  let left = fromReserves;
  for (const share of shares) {
    if (left <= 0) break;
    const part = Math.min(share.amountInCents, left);
    left -= part;
    if (share.holding) toReserves.push({ reserveId: share.reserveId, amount: part });
  }
  const back = toReserves.reduce((sum, share) => sum + share.amount, 0);
  return { toReserves, toAvailable: amount - back };
}

/** A won chargeback: the network returns the amount, to the reserves that still hold their share and to `available` (the fee stays charged). */
export const reinstatementLines = (amount: number, toReserves = 0): PostingLine[] =>
  lines({ account: 'processor_clearing', amount: -amount }, { account: 'reserved', amount: toReserves }, { account: 'available', amount: amount - toReserves });

export const emptyEvidence = (): Evidence => Object.fromEntries(EVIDENCE_FIELDS.map((field) => [field, null])) as Evidence;

/** The evidence after a save: fields given replace what was there (null clears one), others are kept. */
export function mergeEvidence(current: Evidence, update: Partial<Evidence>): Evidence {
  const merged = { ...emptyEvidence(), ...current };
  for (const field of EVIDENCE_FIELDS) if (update[field] !== undefined) merged[field] = update[field];
  return merged;
}

/** Every `dispute.*` event carries the same payload. */
export function disputeEventPayload(d: {
  id: string;
  checkoutSessionId: string;
  status: DisputeStatus;
  reason: string;
  amountInCents: number;
  evidenceDueBy: Date;
}) {
  return {
    disputeId: d.id,
    checkoutSessionId: d.checkoutSessionId,
    status: d.status,
    reason: d.reason,
    amountInCents: d.amountInCents,
    evidenceDueBy: d.evidenceDueBy.toISOString(),
  };
}
