import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../events/index.js';
import { type Balance, ownerOf, postTransaction } from '../ledger/index.js';
import { consumeReserves, restoreReserves } from '../reserves/index.js';
import { Dispute, DisputeReservePart } from './dispute.entity.js';
import { amountFromReserves, chargebackFunding, chargebackLines, disputeEventPayload, reinstatementLines, reinstatementPlan } from './dispute.rules.js';

/**
 * A chargeback's money, out and back: the funds it withdraws when it opens (or an inquiry escalates) and
 * the amount a won one returns. Each runs in the caller's transaction, under the balance lock it holds
 * (dispute.lifecycle.ts takes it, then the dispute's row).
 */

/**
 * A chargeback's money leaves the business: the amount (to the card network) and the fee (to fee
 * revenue), each one balanced posting, from `available`, then the oldest holding reserves, the rest left
 * owing (`available` below zero). Each reserve's share is recorded for the balance transactions.
 */
export async function withdrawFunds(tx: EntityManager, balance: Balance, dispute: Dispute, at: Date): Promise<void> {
  const funding = chargebackFunding(dispute.amountInCents, dispute.feeInCents, { available: balance.available, heldInReserves: balance.reserved });
  const consumed = await consumeReserves(tx, ownerOf(dispute), funding.total.fromReserves);
  // `reserved` is what the reserves hold (ledger verify holds the two equal), so this never happens.
  if (consumed.taken !== funding.total.fromReserves) throw new Error(`reserves gave ${consumed.taken} of the ${funding.total.fromReserves} reserved`);
  for (const part of consumed.parts) tx.create(DisputeReservePart, { disputeId: dispute.id, reserveId: part.reserveId, amountInCents: part.amount });
  const referenceId = dispute.id;
  postTransaction(tx, balance, { kind: 'dispute.funds_withdrawn', referenceId, lines: chargebackLines(funding.amount, 'processor_clearing'), at, overdraw: true });
  if (dispute.feeInCents > 0) {
    postTransaction(tx, balance, { kind: 'dispute.fee', referenceId, lines: chargebackLines(funding.fee, 'fee_revenue'), at, overdraw: true });
  }
  dispute.fromAvailableInCents = funding.total.fromAvailable;
  dispute.fromReservesInCents = funding.total.fromReserves;
  dispute.owedInCents = funding.total.owed;
  recordEvent(tx, ownerOf(dispute), 'dispute.funds_withdrawn', disputeEventPayload(dispute), at);
}

/**
 * A won chargeback: the network returns the amount (`dispute.funds_reinstated`; the fee stays charged),
 * its reserve-funded part to the reserves that still hold their share and the rest to `available`.
 */
export async function reinstateFunds(tx: EntityManager, balance: Balance, dispute: Dispute, at: Date): Promise<void> {
  const toReserves = await reinstateReserveShares(tx, dispute, at);
  postTransaction(tx, balance, { kind: 'dispute.funds_reinstated', referenceId: dispute.id, lines: reinstatementLines(dispute.amountInCents, toReserves), at });
  recordEvent(tx, ownerOf(dispute), 'dispute.funds_reinstated', disputeEventPayload(dispute), at);
}

/**
 * A won chargeback's reserve-funded part goes back to each reserve it came from whose release date, by
 * the database's clock (the one a release is judged by), is still ahead: the reserve's hold resumes and
 * its release runs at `releaseAt` (`restoreReserves`). A share whose reserve is due already goes to
 * `available` with the rest. Records what each reserve got back and answers the total, for the posting.
 */
async function reinstateReserveShares(tx: EntityManager, dispute: Dispute, at: Date): Promise<number> {
  const fromReserves = amountFromReserves(dispute);
  if (fromReserves === 0) return 0;
  const shares = await tx.getConnection().execute<{ reserve_id: string; amount: string; holding: boolean }[]>(
    `select p.reserve_id, p.amount_in_cents::text as amount, r.release_at > now() as holding
       from dispute_reserve_parts p join reserves r on r.id = p.reserve_id
      where p.dispute_id = ? order by r.reserved_at, r.id`,
    [dispute.id],
    'all',
    tx.getTransactionContext(),
  );
  const plan = reinstatementPlan(
    dispute.amountInCents,
    fromReserves,
    shares.map((share) => ({ reserveId: share.reserve_id, amountInCents: Number(share.amount), holding: share.holding })),
  );
  if (plan.toReserves.length === 0) return 0;
  const parts = await tx.find(DisputeReservePart, { disputeId: dispute.id, reserveId: { $in: plan.toReserves.map((share) => share.reserveId) } });
  for (const part of parts) part.returnedInCents = plan.toReserves.find((share) => share.reserveId === part.reserveId)!.amount;
  return restoreReserves(tx, { id: dispute.id, description: `won chargeback ${dispute.id}` }, plan.toReserves, at);
}
