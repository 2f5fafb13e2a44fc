import type { EntityManager } from '@mikro-orm/postgresql';
import { descriptionOf, sourceOfReference, typeOf, type BalanceType } from './balance-transaction.rules.js';
import type { BalanceTransactionResource } from './balance-transaction.schemas.js';

/** One ledger transaction's move on one balance type, as `itemRows` reads it. */
export interface ItemRow {
  /** `txn_…`, made by the query (the same as `balanceTransactionId`), which orders by it. */
  id: string;
  kind: string;
  reference_id: string;
  created_at: Date | string;
  account: BalanceType;
  /** Bigint sums, as text. */
  amount: string;
  fee: string;
}

type Funding = NonNullable<BalanceTransactionResource['funding']>;

/**
 * A page's rows as items. What the ledger row does not carry is read once per page: the reserve a
 * payment created (the `reserve_hold`'s source and `availableOn`) and each refund's and chargeback's funding.
 */
export async function itemsOf(em: EntityManager, rows: ItemRow[]): Promise<BalanceTransactionResource[]> {
  const holds = rows.filter((r) => r.kind === 'payment' && r.account === 'reserved').map((r) => r.reference_id);
  const refunds = rows.filter((r) => r.kind === 'refund.created').map((r) => r.reference_id);
  const disputes = rows.filter((r) => r.kind === 'dispute.funds_withdrawn').map((r) => r.reference_id);
  const reserves = await reservesOfPayments(em, holds);
  const funding = new Map([...(await fundingOfRefunds(em, refunds)), ...(await fundingOfDisputes(em, disputes))]);
  return rows.map((row) => {
    const createdAt = new Date(row.created_at).toISOString();
    const type = typeOf(row.kind, row.account);
    const net = Number(row.amount);
    const fee = Number(row.fee);
    const reserve = type === 'reserve_hold' ? reserves.get(row.reference_id) : undefined;
    const sourceId = reserve?.id ?? sourceOfReference(row.kind, row.reference_id);
    return {
      id: row.id,
      type,
      amountInCents: net + fee,
      feeInCents: fee,
      netInCents: net,
      balanceType: row.account,
      sourceId,
      createdAt,
      availableOn: reserve ? reserve.releaseAt : createdAt,
      description: descriptionOf(type, sourceId, net, row.account),
      ...(type === 'refund' || type === 'dispute' ? { funding: funding.get(row.reference_id) ?? [] } : {}),
    };
  });
}

const placeholders = (values: unknown[]) => values.map(() => '?').join(', ');

async function reservesOfPayments(em: EntityManager, paymentIds: string[]) {
  if (paymentIds.length === 0) return new Map<string, { id: string; releaseAt: string }>();
  const rows = await em
    .getConnection()
    .execute<{ id: string; payment_id: string; release_at: Date | string }[]>(
      `select id, payment_id, release_at from reserves where payment_id in (${placeholders(paymentIds)})`,
      paymentIds,
    );
  return new Map(rows.map((r) => [r.payment_id, { id: r.id, releaseAt: new Date(r.release_at).toISOString() }]));
}

/** `available` first (what the refund took from it), then each reserve's share, by reserve id. */
async function fundingOfRefunds(em: EntityManager, refundIds: string[]): Promise<Map<string, Funding>> {
  if (refundIds.length === 0) return new Map();
  const connection = em.getConnection();
  const refunds = await connection.execute<{ id: string; from_available: string }[]>(
    `select id, from_available_in_cents::text as from_available from refunds where id in (${placeholders(refundIds)})`,
    refundIds,
  );
  const parts = await connection.execute<{ refund_id: string; reserve_id: string; amount: string }[]>(
    `select refund_id, reserve_id, amount_in_cents::text as amount from refund_reserve_parts
     where refund_id in (${placeholders(refundIds)}) order by refund_id, reserve_id`,
    refundIds,
  );
  const funding = new Map<string, Funding>();
  for (const refund of refunds) {
    const available = Number(refund.from_available);
    funding.set(refund.id, available > 0 ? [{ from: 'available', amountInCents: available }] : []);
  }
  for (const part of parts) funding.get(part.refund_id)?.push({ from: part.reserve_id, amountInCents: Number(part.amount) });
  return funding;
}

/** A chargeback's amount and fee together: `available` first, then each reserve's share, by reserve id, then what was owed. */
async function fundingOfDisputes(em: EntityManager, disputeIds: string[]): Promise<Map<string, Funding>> {
  if (disputeIds.length === 0) return new Map();
  const connection = em.getConnection();
  const disputes = await connection.execute<{ id: string; from_available: string; owed: string }[]>(
    `select id, from_available_in_cents::text as from_available, owed_in_cents::text as owed from disputes where id in (${placeholders(disputeIds)})`,
    disputeIds,
  );
  const parts = await connection.execute<{ dispute_id: string; reserve_id: string; amount: string }[]>(
    `select dispute_id, reserve_id, amount_in_cents::text as amount from dispute_reserve_parts
     where dispute_id in (${placeholders(disputeIds)}) order by dispute_id, reserve_id`,
    disputeIds,
  );
  const funding = new Map<string, Funding>();
  for (const dispute of disputes) {
    const shares: Funding = Number(dispute.from_available) > 0 ? [{ from: 'available', amountInCents: Number(dispute.from_available) }] : [];
    shares.push(...parts.filter((p) => p.dispute_id === dispute.id).map((p) => ({ from: p.reserve_id, amountInCents: Number(p.amount) })));
    if (Number(dispute.owed) > 0) shares.push({ from: 'owed', amountInCents: Number(dispute.owed) });
    funding.set(dispute.id, shares);
  }
  return funding;
}
