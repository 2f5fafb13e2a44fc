import { ENTRY_SUMS, owner, type Check } from './ledger-verify.checks.js';

/**
 * `ledger verify`'s checks of what chargebacks do to the money: how far `available` may be below zero,
 * how each chargeback's postings split, which reserves gave and got back, and what a won one returned.
 */

/** The ledger kinds of a chargeback's two postings, which one transaction writes together. */
const CHARGEBACK_KINDS = `('dispute.funds_withdrawn', 'dispute.fee')`;

export const disputeChecks: Check[] = [
  {
    // A business no chargeback ever left owing may never have `available` below zero.
    sql: `with sums as (${ENTRY_SUMS})
          select s.business_id, s.livemode, s.available from sums s
          where s.available < 0 and not exists (
            select 1 from disputes d where d.business_id = s.business_id and d.livemode = s.livemode and d.owed_in_cents > 0)`,
    describe: (r) => `${owner(r)}: available is ${r.available}, below zero though no chargeback ever left it owing`,
  },
  {
    // Only a chargeback may take `available` below zero, and only by what it could not cover (its
    // `owedInCents`); every later credit pays that debt down first, and every other move that lowers
    // `available` needs it covered. So after every posting, in the order they were made (entry ids: each
    // business's postings are serialised by its balance lock), `available` is never further below zero
    // than the debt outstanding then: the chargebacks' debts, less what credits since repaid (a walk that
    // never goes below zero: its running sum less its lowest point). The last posting's is the debt
    // outstanding now. A chargeback's two postings are one step, its whole debt entering with the first.
    sql: `with owing as (select distinct business_id, livemode from disputes where owed_in_cents > 0),
          moves as (
            select e.business_id, e.livemode, min(e.id) as seq, sum(e.amount)::bigint as delta,
                   (array_agg(t.id order by e.id))[1] as transaction_id, (array_agg(t.kind order by e.id))[1] as kind,
                   (array_agg(t.reference_id order by e.id))[1] as reference_id, bool_or(t.kind in ${CHARGEBACK_KINDS}) as chargeback
            from ledger_entries e
            join owing o on o.business_id = e.business_id and o.livemode = e.livemode
            join ledger_transactions t on t.id = e.transaction_id
            where e.account = 'available'
            group by e.business_id, e.livemode, case when t.kind in ${CHARGEBACK_KINDS} then 'dispute:' || t.reference_id else t.id end),
          steps as (
            select m.*, case
                when m.chargeback then coalesce((select d.owed_in_cents from disputes d where d.id = m.reference_id), 0)
                when m.delta > 0 then -m.delta else 0 end as change
            from moves m),
          walk as (
            select s.*, sum(s.delta) over w as running, sum(s.change) over w as net from steps s
            window w as (partition by s.business_id, s.livemode order by s.seq rows unbounded preceding)),
          debt as (
            select w.*, w.net - least(0, min(w.net) over (partition by w.business_id, w.livemode order by w.seq rows unbounded preceding)) as owed
            from walk w)
          select distinct on (business_id, livemode) business_id, livemode, transaction_id, kind, reference_id, running, owed
          from debt where running < -owed order by business_id, livemode, seq`,
    describe: (r) =>
      `${owner(r)}: ledger transaction ${r.transaction_id} (${r.kind} ${r.reference_id}) took available to ${r.running}, further below zero than the ${r.owed} its chargebacks then left owing`,
  },
  {
    // A chargeback's funding is what its two postings took: `available` (its own share and what was owed)
    // and `reserved` (the reserves' shares, recorded per reserve), one withdrawal each; an inquiry has none.
    sql: `with posted as (
            select t.reference_id as id, count(distinct t.id) filter (where t.kind = 'dispute.funds_withdrawn')::int as withdrawals,
                   count(distinct t.id)::int as postings,
                   coalesce(-sum(e.amount) filter (where e.account = 'available'), 0)::bigint as from_available,
                   coalesce(-sum(e.amount) filter (where e.account = 'reserved'), 0)::bigint as from_reserves
            from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
            where t.kind in ${CHARGEBACK_KINDS} group by t.reference_id),
          parts as (select dispute_id, sum(amount_in_cents)::bigint as parts from dispute_reserve_parts group by dispute_id)
          select d.id, d.status, d.from_available_in_cents + d.owed_in_cents as funded_available, d.from_reserves_in_cents as funded_reserves,
                 coalesce(p.withdrawals, 0) as withdrawals, coalesce(p.from_available, 0) as posted_available,
                 coalesce(p.from_reserves, 0) as posted_reserves, coalesce(r.parts, 0) as parts
          from disputes d left join posted p on p.id = d.id left join parts r on r.dispute_id = d.id
          where (d.from_available_in_cents is null and (coalesce(p.postings, 0) > 0 or r.parts is not null))
             or (d.from_available_in_cents is not null and (coalesce(p.withdrawals, 0) <> 1
               or coalesce(p.from_available, 0) <> d.from_available_in_cents + d.owed_in_cents
               or coalesce(p.from_reserves, 0) <> d.from_reserves_in_cents or coalesce(r.parts, 0) <> d.from_reserves_in_cents))`,
    describe: (r) =>
      `dispute ${r.id} (${r.status}) was funded ${r.funded_available ?? 'nothing'} from available and ${r.funded_reserves ?? 'nothing'} from reserves, but ${r.withdrawals} withdrawal(s) posted ${r.posted_available} and ${r.posted_reserves}, and its reserve shares add up to ${r.parts}`,
  },
  {
    // The two postings split as the row says: `dispute.funds_withdrawn` moves exactly the amount, and took
    // from the reserves only what was left of the amount once `available` had given (the amount is taken
    // before the fee, `chargebackFunding`); `dispute.fee` moves exactly the fee, and is absent for none.
    sql: `with posted as (
            select t.reference_id as id,
                   coalesce(sum(e.amount) filter (where t.kind = 'dispute.funds_withdrawn' and e.account = 'processor_clearing'), 0)::bigint as amount,
                   coalesce(-sum(e.amount) filter (where t.kind = 'dispute.funds_withdrawn' and e.account = 'reserved'), 0)::bigint as amount_from_reserves,
                   coalesce(sum(e.amount) filter (where t.kind = 'dispute.fee' and e.account = 'fee_revenue'), 0)::bigint as fee,
                   count(distinct t.id) filter (where t.kind = 'dispute.fee')::int as fee_postings
            from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
            where t.kind in ${CHARGEBACK_KINDS} group by t.reference_id)
          select d.id, d.status, d.amount_in_cents as amount, d.fee_in_cents as fee,
                 least(d.from_reserves_in_cents, greatest(0, d.amount_in_cents - d.from_available_in_cents)) as amount_from_reserves,
                 coalesce(p.amount, 0) as posted_amount, coalesce(p.fee, 0) as posted_fee, coalesce(p.amount_from_reserves, 0) as posted_from_reserves
          from disputes d left join posted p on p.id = d.id
          where d.from_available_in_cents is not null and (coalesce(p.amount, 0) <> d.amount_in_cents or coalesce(p.fee, 0) <> d.fee_in_cents
             or coalesce(p.fee_postings, 0) <> (case when d.fee_in_cents > 0 then 1 else 0 end)
             or coalesce(p.amount_from_reserves, 0) <> least(d.from_reserves_in_cents, greatest(0, d.amount_in_cents - d.from_available_in_cents)))`,
    describe: (r) =>
      `dispute ${r.id} (${r.status}) is an amount of ${r.amount} (${r.amount_from_reserves} of it from reserves) and a fee of ${r.fee}, but its postings moved ${r.posted_amount} (${r.posted_from_reserves} from reserves) and ${r.posted_fee}`,
  },
  {
    // What each reserve has consumed is exactly the shares that took from it and were not given back:
    // its shares of refunds that have not failed, and of chargebacks less what a won one returned. A
    // refund made before shares were recorded says only how much it took from reserves, not from which:
    // for a business that has one, the business's reserves are held to the total instead.
    sql: `with taken as (
            select reserve_id, sum(amount)::bigint as taken from (
              select p.reserve_id, p.amount_in_cents as amount from refund_reserve_parts p join refunds f on f.id = p.refund_id where f.status <> 'failed'
              union all select reserve_id, amount_in_cents - returned_in_cents from dispute_reserve_parts) shares
            group by reserve_id),
          unrecorded as (
            select business_id, livemode, sum(from_reserves_in_cents)::bigint as taken from refunds f
            where f.from_reserves_in_cents > 0 and not exists (select 1 from refund_reserve_parts p where p.refund_id = f.id)
            group by business_id, livemode),
          per_reserve as (
            select r.business_id, r.livemode, r.id, r.consumed_amount_in_cents as consumed, coalesce(t.taken, 0) as taken
            from reserves r left join taken t on t.reserve_id = r.id)
          select 'reserve ' || r.id as what, r.consumed, r.taken from per_reserve r
          where r.consumed <> r.taken and not exists (select 1 from unrecorded u where u.business_id = r.business_id and u.livemode = r.livemode)
          union all
          select 'the reserves of business ' || r.business_id || (case when r.livemode then ' (live)' else ' (test)' end),
                 sum(r.consumed)::bigint, (sum(r.taken) + max(u.taken))::bigint
          from per_reserve r join unrecorded u on u.business_id = r.business_id and u.livemode = r.livemode
          group by r.business_id, r.livemode having sum(r.consumed) <> sum(r.taken) + max(u.taken)`,
    describe: (r) => `${r.what} consumed ${r.consumed}, but the refunds and chargebacks that took from it add up to ${r.taken}`,
  },
  {
    // A won chargeback got its amount back exactly once: to the reserves its shares record as given back
    // and the rest to `available`; no other dispute got anything back.
    sql: `with returned as (select dispute_id, sum(returned_in_cents)::bigint as returned from dispute_reserve_parts group by dispute_id)
          select d.id, d.status, d.amount_in_cents as amount, count(distinct t.id)::int as postings,
                 coalesce(sum(e.amount) filter (where e.account = 'available'), 0)::bigint as to_available,
                 coalesce(sum(e.amount) filter (where e.account = 'reserved'), 0)::bigint as to_reserves,
                 coalesce(max(r.returned), 0) as returned
          from disputes d
          left join ledger_transactions t on t.kind = 'dispute.funds_reinstated' and t.reference_id = d.id
          left join ledger_entries e on e.transaction_id = t.id and e.account in ('available', 'reserved')
          left join returned r on r.dispute_id = d.id
          group by d.id, d.status, d.amount_in_cents
          having (d.status = 'won' and (count(distinct t.id) <> 1
                   or coalesce(sum(e.amount), 0) <> d.amount_in_cents
                   or coalesce(sum(e.amount) filter (where e.account = 'reserved'), 0) <> coalesce(max(r.returned), 0)))
              or (d.status <> 'won' and (count(distinct t.id) > 0 or coalesce(max(r.returned), 0) > 0))`,
    describe: (r) =>
      `dispute ${r.id} (${r.status}) of ${r.amount} had ${r.postings} reinstatement(s) returning ${r.to_available} to available and ${r.to_reserves} to reserves, whose shares record ${r.returned} given back`,
  },
];
