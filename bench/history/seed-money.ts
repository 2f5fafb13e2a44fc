/**
 * The history seed's sessions and money, as the service writes them (payment.lifecycle.ts, reserve.*,
 * refund.*, withdrawal.*): each session with its items; each payment's ledger transaction, reserve and
 * charge; a release for every reserve whose hold has ended; refunds on 2 % of payments (and failed ones on
 * 0.2 %); periodic withdrawals; and the balance row, equal to the entries. Plain INSERT … SELECT from
 * generate_series, so every trigger fires as it would for the service's own rows.
 */
import { seedId, sessionUuid } from './sql.js';

// Ids and processor references that more than one statement writes (the records, their moves, their events).
export const reserveId = seedId('res', 's.paid_at', 'reserve', 's.i');
export const refundId = seedId('ref', 's.refund_at', 'refund', 's.i');
export const withdrawalId = seedId('wd', 'w.at', 'withdrawal', 'w.j');
export const REFUND_REASON = `case when s.i % 3 = 0 then 'requested_by_customer' end`;
export const PROCESSOR_REFUND_ID = `'re_sim_' || substr(md5(p.nonce || ':re:' || s.i), 1, 24)`;
export const PAYOUT_ID = `'po_sim_' || substr(md5(p.nonce || ':po:' || w.j), 1, 24)`;
export const REFUND_DECLINED = `'Refund declined by the card issuer'`;
export const PAYOUT_REJECTED = `'Payout rejected: the wallet account cannot receive funds'`;

/** A refund's end (completed or declined), 3 seconds after its request. */
export const refundEnd = `s.refund_at + interval '3 seconds'`;
/** A withdrawal's end: paid or failed a minute after its request, cancelled after 5 seconds. */
export const withdrawalEnd = `w.at + case when w.status = 'cancelled' then interval '5 seconds' else interval '60 seconds' end`;

/**
 * Every session, paid or not, with what its rows are made of. Paid sessions are spread evenly over the
 * span, failed and expired ones among them. A customer (`buyer<n>@example.com`) has about 300 sessions,
 * so a search by e-mail matches a few hundred rows at any size. Refunds: `i % 50 = 25` completed (the
 * session is then `refunded`), `i % 500 = 7` declined by the issuer (the session stays `completed`).
 */
export const SESSIONS = `
  create temp table seed_sessions on commit drop as
  with raw as (
    select i::bigint as i, 'paid' as kind, p.start_at + p.span * ((i - 0.5) / p.paid) as created_at
    from seed_params p, generate_series(1, p.paid) i
    union all
    select p.paid + j, 'failed', p.start_at + p.span * ((j - 0.3) / p.failed) from seed_params p, generate_series(1, p.failed) j
    union all
    -- Expired a day after they were created, so none of them is younger than a day.
    select p.paid + p.failed + j, 'cancelled', p.start_at + (p.span - interval '25 hours') * ((j - 0.7) / p.cancelled)
    from seed_params p, generate_series(1, p.cancelled) j),
  priced as (
    select r.*, (select sum((500 + (r.i * 37 + k * 101) % 9500) * (1 + (r.i + k) % 3)) from generate_series(0, r.i % 3) k)::bigint as subtotal
    from raw r)
  select s.i, s.kind, s.created_at, ${sessionUuid('s.created_at', 's.i')} as id, s.subtotal, f.fee, s.subtotal + f.fee as total,
    case when s.kind = 'paid' then (s.subtotal * p.reserve_bps + 5000) / 10000 else 0 end as reserve,
    'buyer' || (s.i % p.customers) || '@example.com' as email, 'Customer ' || (s.i % p.customers) as customer_name,
    s.created_at + interval '45 seconds' as paid_at,
    s.created_at + interval '45 seconds' + p.hold as release_at,
    case when s.kind <> 'paid' then null when s.i % 50 = 25 then 'completed' when s.i % 500 = 7 then 'failed' end as refund_status,
    s.created_at + interval '45 seconds' + least(interval '2 days', (p.end_at - s.created_at) / 2) as refund_at
  from priced s cross join seed_params p cross join lateral (select (s.subtotal * p.fee_bps + 5000) / 10000 + p.fee_fixed_cents as fee) f`;

export const CHECKOUT_SESSIONS = `
  insert into checkout_sessions (id, business_id, livemode, user_id, status, currency, subtotal, fee, total, description,
    customer_email, ask_shipping, success_url, cancel_url, failure_url, metadata, expires_at, created_at, updated_at, completed_at,
    customer_name, shipping, card_brand, card_last4, failure_code, failure_message, processor_charge_id, payment_attempt_id)
  select s.id, p.business_id, p.livemode, p.key_id,
    case when s.kind <> 'paid' then s.kind when s.refund_status = 'completed' then 'refunded' else 'completed' end,
    'USD', s.subtotal, s.fee, s.total, 'Order #' || s.i, s.email, false, 'https://shop.example/ok?order=' || s.i, null,
    'https://shop.example/failed', jsonb_build_object('orderId', 'A-' || s.i), s.created_at + interval '24 hours', s.created_at,
    case s.kind when 'cancelled' then s.created_at + interval '24 hours' when 'failed' then s.paid_at
      else case when s.refund_status = 'completed' then ${refundEnd} else s.paid_at end end,
    case when s.kind = 'paid' then s.paid_at end,
    case when s.kind <> 'cancelled' then s.customer_name end, null,
    case when s.kind <> 'cancelled' then 'visa' end, case when s.kind <> 'cancelled' then '4242' end,
    case when s.kind = 'failed' then 'card_declined' end, case when s.kind = 'failed' then 'Your card was declined.' end,
    case when s.kind = 'paid' then 'ch_sim_' || case when s.refund_status = 'failed' then 'refund_declined' else 'ok' end || '_' || substr(md5(s.id::text), 1, 24) end,
    case when s.kind <> 'cancelled' then md5(p.nonce || ':attempt:' || s.i)::uuid::text end
  from seed_sessions s, seed_params p order by s.created_at`;

export const SESSION_ITEMS = `
  insert into session_items (id, session_id, position, name, description, price, quantity, image_url, subtotal)
  select ${seedId('item', 's.created_at', 'item', "s.i || ':' || k")}, s.id, k, 'Item ' || ((s.i * 37 + k * 101) % 9500), null, v.price, v.quantity, null, v.price * v.quantity
  from seed_sessions s cross join seed_params p cross join lateral generate_series(0, s.i % 3) k
  cross join lateral (select (500 + (s.i * 37 + k * 101) % 9500)::bigint as price, (1 + (s.i + k) % 3)::int as quantity) v
  order by s.created_at, k`;

/** The processor simulator's record of each charge (simulator_charges), keyed by the session id. */
export const CHARGES = `
  insert into simulator_charges (livemode, idempotency_key, status, charge_id, decline_code, created_at)
  select p.livemode, s.id::text, case when s.kind = 'paid' then 'succeeded' else 'declined' end,
    case when s.kind = 'paid' then 'ch_sim_' || case when s.refund_status = 'failed' then 'refund_declined' else 'ok' end || '_' || substr(md5(s.id::text), 1, 24) end,
    case when s.kind = 'failed' then 'card_declined' end, s.paid_at
  from seed_sessions s, seed_params p where s.kind <> 'cancelled' order by s.created_at`;

/** One reserve per payment (its hold from the business's terms); released once `release_at` has passed. */
export const RESERVES = `
  insert into reserves (id, business_id, livemode, payment_id, original_amount_in_cents, reserve_amount_in_cents, reserve_bps,
    consumed_amount_in_cents, released_amount_in_cents, status, release_at, released_at, reserved_at, updated_at)
  select ${reserveId}, p.business_id, p.livemode, s.id, s.total, s.reserve, p.reserve_bps, 0,
    case when s.release_at <= p.now then s.reserve else 0 end,
    case when s.release_at <= p.now then 'released' else 'active' end, s.release_at,
    case when s.release_at <= p.now then s.release_at end, s.paid_at, case when s.release_at <= p.now then s.release_at else s.paid_at end
  from seed_sessions s, seed_params p where s.kind = 'paid' and s.reserve > 0 order by s.paid_at`;

/** Funded from `available` (whose balance always covers them here), so no reserve shares are recorded. */
export const REFUNDS = `
  insert into refunds (id, business_id, livemode, checkout_session_id, amount_in_cents, from_available_in_cents, from_reserves_in_cents,
    reason, status, created_at, updated_at, processing_at, completed_at, failed_at, processor_refund_id, failure_reason)
  select ${refundId}, p.business_id, p.livemode, s.id, s.total, s.total, 0, ${REFUND_REASON},
    s.refund_status, s.refund_at, ${refundEnd}, s.refund_at + interval '1 second',
    case when s.refund_status = 'completed' then ${refundEnd} end,
    case when s.refund_status = 'failed' then ${refundEnd} end,
    case when s.refund_status = 'completed' then ${PROCESSOR_REFUND_ID} end,
    case when s.refund_status = 'failed' then ${REFUND_DECLINED} end
  from seed_sessions s, seed_params p where s.refund_status is not null order by s.refund_at`;

/**
 * A withdrawal after every `paid / withdrawals` payments, of 70 % of what they made available: the last
 * two still `pending`, every 50th `failed` (its money back in `available`), every 100th `cancelled`.
 */
export const WITHDRAWALS = `
  create temp table seed_withdrawals on commit drop as
  with buckets as (
    select ceil(s.i::numeric * p.withdrawals / p.paid)::int as j, sum(s.subtotal - s.reserve)::bigint as credited
    from seed_sessions s, seed_params p where s.kind = 'paid' group by 1)
  select b.j, p.start_at + p.span * (b.j::float8 / p.withdrawals) as at, greatest(1, b.credited * 7 / 10) as amount,
    case when b.j > p.withdrawals - 2 then 'pending' when b.j % 50 = 13 then 'failed' when b.j % 100 = 41 then 'cancelled' else 'completed' end as status
  from buckets b, seed_params p`;

export const WITHDRAWAL_ROWS = `
  insert into withdrawals (id, business_id, livemode, amount_in_cents, status, destination_type, destination_details, notes,
    requested_at, updated_at, processing_at, completed_at, cancelled_at, failed_at, processor_transaction_id, transaction_hash, failure_reason)
  select ${withdrawalId}, p.business_id, p.livemode, w.amount, w.status, 'wallet', '{"walletEmail":"payouts@merchant.example"}', null,
    w.at, case when w.status = 'pending' then w.at else ${withdrawalEnd} end,
    case when w.status in ('completed', 'failed') then w.at + interval '20 seconds' end,
    case when w.status = 'completed' then ${withdrawalEnd} end,
    case when w.status = 'cancelled' then ${withdrawalEnd} end,
    case when w.status = 'failed' then ${withdrawalEnd} end,
    case when w.status = 'completed' then ${PAYOUT_ID} end, null,
    case when w.status = 'failed' then ${PAYOUT_REJECTED} end
  from seed_withdrawals w, seed_params p order by w.at`;

/** The payout method the withdrawals were made to, as the admin CLI registers one. */
export const WITHDRAWAL_METHOD = `
  insert into withdrawal_methods (id, business_id, destination_type, details, created_at)
  select ${seedId('wm', 'p.start_at', 'method', '0')}, p.business_id, 'wallet', '{"walletEmail": "payouts@merchant.example"}', p.start_at
  from seed_params p where not exists (select 1 from withdrawal_methods m where m.business_id = p.business_id and m.destination_type = 'wallet')`;

/** A ledger move: its transaction's id, kind, reference and time, and its entries' accounts and amounts (SQL each; zeros dropped later). */
const move = (id: string, kind: string, reference: string, at: string, lines: [account: string, amount: string][]) =>
  `select ${id} as ltx_id, ${kind} as kind, ${reference} as reference_id, ${at} as at,
     array[${lines.map(([account]) => account).join(', ')}] as accounts, array[${lines.map(([, amount]) => `(${amount})::bigint`).join(', ')}] as amounts`;

const ltx = (at: string, tag: string, index: string) => seedId('ltx', at, tag, index);

/** Every money move of the history, as `postTransaction` would post it, in one table to insert in time order. */
export const MOVES = `
  create temp table seed_moves on commit drop as
  ${move(ltx('s.paid_at', 'move-payment', 's.i'), `'payment'`, 's.id::text', 's.paid_at', [
    [`'processor_clearing'`, '-s.total'], [`'fee_revenue'`, 's.fee'], [`'reserved'`, 's.reserve'], [`'available'`, 's.subtotal - s.reserve'],
  ])} from seed_sessions s, seed_params p where s.kind = 'paid'
  union all
  ${move(ltx('s.release_at', 'move-release', 's.i'), `'reserve.release'`, reserveId, 's.release_at', [[`'reserved'`, '-s.reserve'], [`'available'`, 's.reserve']])}
  from seed_sessions s, seed_params p where s.kind = 'paid' and s.reserve > 0 and s.release_at <= p.now
  union all
  ${move(ltx('s.refund_at', 'move-refund', 's.i'), `'refund.created'`, refundId, 's.refund_at', [[`'available'`, '-s.total'], [`'refunds_in_flight'`, 's.total']])}
  from seed_sessions s, seed_params p where s.refund_status is not null
  union all
  -- Completed: the money leaves for the card (processor clearing); declined: it returns to available.
  ${move(ltx(refundEnd, 'move-refund-end', 's.i'), `'refund.' || s.refund_status`, refundId, refundEnd, [
    [`'refunds_in_flight'`, '-s.total'], [`case s.refund_status when 'completed' then 'processor_clearing' else 'available' end`, 's.total'],
  ])} from seed_sessions s, seed_params p where s.refund_status is not null
  union all
  ${move(ltx('w.at', 'move-withdrawal', 'w.j'), `'withdrawal.created'`, withdrawalId, 'w.at', [[`'available'`, '-w.amount'], [`'pending_withdrawal'`, 'w.amount']])}
  from seed_withdrawals w, seed_params p
  union all
  -- Paid out: to payouts clearing; failed or cancelled: back to available.
  ${move(ltx(withdrawalEnd, 'move-withdrawal-end', 'w.j'), `'withdrawal.' || case w.status when 'completed' then 'paid' else w.status end`, withdrawalId, withdrawalEnd, [
    [`'pending_withdrawal'`, '-w.amount'], [`case w.status when 'completed' then 'payouts_clearing' else 'available' end`, 'w.amount'],
  ])} from seed_withdrawals w, seed_params p where w.status <> 'pending'`;

export const LEDGER_TRANSACTIONS = `
  insert into ledger_transactions (id, business_id, livemode, kind, reference_id, created_at)
  select m.ltx_id, p.business_id, p.livemode, m.kind, m.reference_id, m.at from seed_moves m, seed_params p order by m.at, m.ltx_id`;

export const LEDGER_ENTRIES = `
  insert into ledger_entries (transaction_id, business_id, livemode, account, amount)
  select m.ltx_id, p.business_id, p.livemode, l.account, l.amount
  from seed_moves m cross join seed_params p cross join lateral unnest(m.accounts, m.amounts) with ordinality as l(account, amount, n)
  where l.amount <> 0 order by m.at, m.ltx_id, l.n`;

/** The balance row: the sums of the business's entries, whatever it held before the seed. */
export const BALANCE = `
  insert into balances (business_id, livemode, available, reserved, pending_withdrawal, refunds_in_flight, updated_at)
  select p.business_id, p.livemode,
    coalesce(sum(e.amount) filter (where e.account = 'available'), 0), coalesce(sum(e.amount) filter (where e.account = 'reserved'), 0),
    coalesce(sum(e.amount) filter (where e.account = 'pending_withdrawal'), 0), coalesce(sum(e.amount) filter (where e.account = 'refunds_in_flight'), 0),
    p.now
  from seed_params p left join ledger_entries e on e.business_id = p.business_id and e.livemode = p.livemode
  group by p.business_id, p.livemode, p.now
  on conflict (business_id, livemode) do update set available = excluded.available, reserved = excluded.reserved,
    pending_withdrawal = excluded.pending_withdrawal, refunds_in_flight = excluded.refunds_in_flight, updated_at = excluded.updated_at`;

