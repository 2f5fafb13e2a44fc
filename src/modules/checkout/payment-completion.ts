import type { EntityManager } from '@mikro-orm/postgresql';
import { centsToDecimalString } from '../../domain/money.js';
import { newId } from '../../domain/ids.js';
import { lockBalanceRow, postingStatement } from '../ledger/index.js';
import { reserveReleaseWorkflowContract } from '../../../contracts/reserves.js';
import { workflowStart, type OutboxMessage } from '../outbox/index.js';
import { requireTransaction } from '../../db/transaction.js';
import { checkoutSucceededPayload, paymentLines, paymentSplit } from './payment.rules.js';
import type { SessionStatus } from './session.entity.js';
import { reserveReleaseWorkflowId } from '../../../contracts/workflow-ids.js';
import type { ShippingAddress } from '../../../contracts/checkout.js';

/**
 * A payment about to complete, as one read finds it before the transaction: the session's figures and
 * customer (written when its payment began, and unchanged while it is `processing`) and its business's
 * reserve terms. Null when there is no such session.
 */
export interface PaymentToComplete {
  id: string;
  businessId: string;
  livemode: boolean;
  status: SessionStatus;
  subtotal: number;
  fee: number;
  total: number;
  currency: string;
  customerEmail: string;
  customerName: string | null;
  shipping: ShippingAddress | null;
  reserveBps: number;
  reserveHoldMs: number;
}

export async function paymentToComplete(em: EntityManager, sessionId: string): Promise<PaymentToComplete | null> {
  const [row] = await em.getConnection().execute<any[]>(
    `select s.id, s.business_id, s.livemode, s.status, s.subtotal, s.fee, s.total, s.currency, s.customer_email,
       s.customer_name, s.shipping, b.reserve_bps, b.reserve_hold_ms
     from checkout_sessions s join businesses b on b.id = s.business_id where s.id = ?`,
    [sessionId],
  );
  if (!row) return null;
  return {
    id: row.id,
    businessId: row.business_id,
    livemode: row.livemode,
    status: row.status,
    subtotal: Number(row.subtotal),
    fee: Number(row.fee),
    total: Number(row.total),
    currency: row.currency,
    customerEmail: row.customer_email,
    customerName: row.customer_name,
    shipping: typeof row.shipping === 'string' ? JSON.parse(row.shipping) : row.shipping,
    reserveBps: row.reserve_bps,
    reserveHoldMs: Number(row.reserve_hold_ms),
  };
}

/**
 * processing → completed, in the caller's transaction: the ledger posting, the reserve, `checkout.succeeded`
 * and the start of the reserve's release workflow, in ONE statement after the balance lock (`lockBalanceRow`,
 * taken first, as every money move takes it before its record's row). The session's conditional UPDATE is
 * the statement's first part and every other row is written only if it moved one, so the completion is
 * safe to run twice: a session no longer `processing` is left as it is (`completed: false`) and nothing
 * else is written. Two round trips under the hot balance row's lock (the lock, the statement) instead of the unit of work's ten: the
 * pay call waits on it, and so does every other move of the business (docs/benchmark.md, (p)).
 */
export async function completePayment(
  tx: EntityManager,
  payment: PaymentToComplete,
  chargeId: string,
  at: Date = new Date(),
): Promise<{ status: SessionStatus; reserveId: string | null; completed: boolean }> {
  requireTransaction(tx);
  const owner = { businessId: payment.businessId, livemode: payment.livemode };
  await lockBalanceRow(tx, owner);
  const split = paymentSplit(payment, payment.reserveBps);
  const move = postingStatement(owner, { kind: 'payment', referenceId: payment.id, lines: paymentLines(split), at }, { covered: false, onlyIf: 'exists (select 1 from completed)' });
  const reserveId = split.reserve > 0 ? newId('res') : null;
  const releaseAt = new Date(at.getTime() + payment.reserveHoldMs);
  // The event's fan-out, then the release's start: the relay dispatches them after the commit.
  const outbox: OutboxMessage[] = [{ kind: 'event.fanout', eventId: newId('evt'), businessId: payment.businessId }];
  if (reserveId) outbox.push(releaseStart(payment, { reserveId, releaseAt, amountInCents: split.reserve }));
  const [row] = await tx.execute<{ completed: boolean }[]>(
    `with completed as (
        update checkout_sessions set status = 'completed', completed_at = ?, processor_charge_id = ?, updated_at = ?
        where id = ? and status = 'processing' returning id),
      ${move.ctes},
      event as (
        insert into events (id, business_id, livemode, type, payload, created_at)
        select ?, business_id, ?, 'checkout.succeeded', ?::jsonb, ? from moved),
      outbox_rows as (
        insert into outbox (message, created_at)
        select m.message, ? from moved, jsonb_array_elements(?::jsonb) with ordinality as m(message, n) order by m.n)${reserveId ? RESERVE : ''}
      select exists (select 1 from moved) as completed`,
    [
      at, chargeId, at, payment.id,
      ...move.params,
      (outbox[0] as { eventId: string }).eventId, payment.livemode, JSON.stringify(checkoutSucceededPayload(payment, at)), at,
      at, JSON.stringify(outbox),
      ...(reserveId ? [reserveId, payment.livemode, payment.id, payment.total, split.reserve, payment.reserveBps, releaseAt, at, at] : []),
    ],
  );
  if (row?.completed) return { status: 'completed', reserveId, completed: true };
  // Not moved: the session was no longer `processing` (completed or failed before). A business's first
  // payment in a mode has its balance row, made by `lockBalanceRow`.
  const [current] = await tx.execute<{ status: SessionStatus }[]>('select status from checkout_sessions where id = ?', [payment.id]);
  return { status: current?.status ?? payment.status, reserveId: null, completed: false };
}

const RESERVE = `,
      reserve as (
        insert into reserves (id, business_id, livemode, payment_id, original_amount_in_cents, reserve_amount_in_cents, reserve_bps,
          consumed_amount_in_cents, released_amount_in_cents, status, release_at, released_at, reserved_at, updated_at)
        select ?, business_id, ?, ?, ?, ?, ?, 0, 0, 'active', ?, null, ?, ? from moved)`;

/** The release workflow's start, with the search attributes an operator finds it by. */
function releaseStart(payment: PaymentToComplete, reserve: { reserveId: string; releaseAt: Date; amountInCents: number }): OutboxMessage {
  const { reserveId, amountInCents: reserveInCents } = reserve;
  return workflowStart(reserveReleaseWorkflowContract, {
    workflowId: reserveReleaseWorkflowId(reserveId),
    args: [{ reserveId, releaseAt: reserve.releaseAt.toISOString() }],
    // PaymentStatus at the start, not upserted by the workflow: one Temporal action fewer (workflows/reserves.ts).
    searchAttributes: { BusinessId: payment.businessId, Livemode: payment.livemode, PaymentStatus: 'active', AmountInCents: reserveInCents },
    summary: `Release $${centsToDecimalString(reserveInCents)} held from checkout ${payment.id}`,
    // Its first task at the release date: nothing of it runs beside the payment, or for the hold (workflows/reserves.ts).
    startAt: reserve.releaseAt.toISOString(),
  });
}
