import type { EntityManager } from '@mikro-orm/postgresql';
import { disputeChecks } from './ledger-verify.disputes.js';
import { ENTRY_SUMS, HELD, owner, type Check } from './ledger-verify.checks.js';

/**
 * `ledger verify`: every invariant the money rests on, recomputed from the rows. Each check is one query
 * that returns the offenders, and each offender becomes one line naming it; what chargebacks do to the
 * money is checked in ledger-verify.disputes.ts.
 */
const checks: Check[] = [
  {
    sql: `select t.id, coalesce(sum(e.amount), 0)::bigint as total, count(e.id)::int as entries
          from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id
          group by t.id having coalesce(sum(e.amount), 0) <> 0 or count(e.id) < 2`,
    describe: (r) => `ledger transaction ${r.id} has ${r.entries} entries summing to ${r.total}, not zero`,
  },
  {
    sql: `with sums as (${ENTRY_SUMS})
          select coalesce(b.business_id, s.business_id) as business_id, coalesce(b.livemode, s.livemode) as livemode,
                 a.account, a.cached, a.summed
          from balances b full outer join sums s on s.business_id = b.business_id and s.livemode = b.livemode
          cross join lateral (values
            ('available', coalesce(b.available, 0), coalesce(s.available, 0)),
            ('reserved', coalesce(b.reserved, 0), coalesce(s.reserved, 0)),
            ('pending_withdrawal', coalesce(b.pending_withdrawal, 0), coalesce(s.pending_withdrawal, 0)),
            ('refunds_in_flight', coalesce(b.refunds_in_flight, 0), coalesce(s.refunds_in_flight, 0))
          ) as a(account, cached, summed)
          where a.cached <> a.summed`,
    describe: (r) => `${owner(r)}: cached ${r.account} is ${r.cached} but its entries sum to ${r.summed}`,
  },
  {
    sql: `with sums as (${ENTRY_SUMS})
          select business_id, livemode, a.account, a.amount from sums
          cross join lateral (values ('reserved', reserved), ('pending_withdrawal', pending_withdrawal),
            ('refunds_in_flight', refunds_in_flight)) as a(account, amount)
          where a.amount < 0`,
    describe: (r) => `${owner(r)}: ${r.account} is negative (${r.amount})`,
  },
  {
    sql: `select s.id, s.status, count(t.id)::int as payments from checkout_sessions s
          left join ledger_transactions t on t.kind = 'payment' and t.reference_id = s.id::text
          where s.status in ('completed', 'refunded') group by s.id, s.status having count(t.id) <> 1`,
    describe: (r) => `checkout session ${r.id} is ${r.status} with ${r.payments} payment transactions, not one`,
  },
  {
    sql: `select t.id, t.reference_id, s.status from ledger_transactions t
          left join checkout_sessions s on s.id::text = t.reference_id
          where t.kind = 'payment' and (s.id is null or s.status not in ('completed', 'refunded'))`,
    describe: (r) => `payment transaction ${r.id} belongs to session ${r.reference_id}, which is ${r.status ?? 'missing'}`,
  },
  {
    sql: `select id, reserve_amount_in_cents as reserve, consumed_amount_in_cents as consumed,
                 released_amount_in_cents as released, status from reserves
          where ${HELD} < 0 or consumed_amount_in_cents < 0 or released_amount_in_cents < 0
             or status <> case
               when ${HELD} > 0 and (consumed_amount_in_cents > 0 or released_amount_in_cents > 0) then 'partially_released'
               when ${HELD} > 0 then 'active'
               when released_amount_in_cents > 0 then 'released'
               else 'consumed' end`,
    describe: (r) =>
      `reserve ${r.id} (${r.status}): ${r.reserve} first held, ${r.consumed} consumed and ${r.released} released do not add up or do not match its status`,
  },
  {
    // A release's reference is the reserve id, or `<id>#<n>` for a later one (releaseReference): its part before
    // any `#` is an equality PostgreSQL can hash-join on. Matched with `or … like`, it compared every reserve with
    // every release (38 s at 20,000 payments, days at a million).
    sql: `select r.id, r.released_amount_in_cents as released, coalesce(-sum(e.amount), 0)::bigint as posted from reserves r
          left join ledger_transactions t on t.kind = 'reserve.release' and split_part(t.reference_id, '#', 1) = r.id
          left join ledger_entries e on e.transaction_id = t.id and e.account = 'reserved'
          group by r.id having r.released_amount_in_cents <> coalesce(-sum(e.amount), 0)`,
    describe: (r) => `reserve ${r.id} says ${r.released} released but the ledger moved ${r.posted}`,
  },
  {
    // A refund's recorded reserve shares add up to what it took from reserves, and a failed one gave
    // exactly those shares back to `reserved` (refunds made before shares were recorded have none).
    sql: `with parts as (select refund_id, sum(amount_in_cents)::bigint as parts from refund_reserve_parts group by refund_id)
          select r.id, r.status, r.from_reserves_in_cents as from_reserves, p.parts, coalesce(sum(e.amount), 0)::bigint as returned
          from refunds r join parts p on p.refund_id = r.id
          left join ledger_transactions t on t.kind = 'refund.failed' and t.reference_id = r.id
          left join ledger_entries e on e.transaction_id = t.id and e.account = 'reserved'
          group by r.id, r.status, r.from_reserves_in_cents, p.parts
          having p.parts <> r.from_reserves_in_cents or (r.status = 'failed' and coalesce(sum(e.amount), 0) <> p.parts)`,
    describe: (r) =>
      `refund ${r.id} (${r.status}) took ${r.from_reserves} from reserves, its reserve shares add up to ${r.parts} and its failure gave ${r.returned} back to reserved`,
  },
  {
    sql: `with sums as (${ENTRY_SUMS}),
          held as (select business_id, livemode, sum(${HELD})::bigint as held from reserves group by business_id, livemode)
          select coalesce(s.business_id, h.business_id) as business_id, coalesce(s.livemode, h.livemode) as livemode,
                 coalesce(s.reserved, 0) as reserved, coalesce(h.held, 0) as held
          from sums s full outer join held h on h.business_id = s.business_id and h.livemode = s.livemode
          where coalesce(s.reserved, 0) <> coalesce(h.held, 0)`,
    describe: (r) => `${owner(r)}: reserved is ${r.reserved} but its reserves hold ${r.held}`,
  },
  {
    // Not money, but what list totals are read from (src/modules/lists/row-count.queries.ts): the
    // counters and their unfolded deltas must add up to the rows, key by key, in one snapshot.
    sql: `with counted as (
            select business_id, livemode, resource, key, sum(n)::bigint as counted from (
              select business_id, livemode, resource, key, count as n from row_counts
              union all select business_id, livemode, resource, key, delta from row_count_deltas) c
            group by 1, 2, 3, 4),
          actual as (
            select business_id, livemode, 'checkout_session' as resource, status as key, count(*)::bigint as actual from checkout_sessions group by 1, 2, 4
            union all select business_id, livemode, 'refund', status, count(*) from refunds group by 1, 2, 4
            union all select business_id, livemode, 'withdrawal', status, count(*) from withdrawals group by 1, 2, 4
            union all select business_id, livemode, 'reserve', status, count(*) from reserves group by 1, 2, 4
            union all select business_id, livemode, 'event', type, count(*) from events group by 1, 2, 4)
          select business_id, livemode, resource, key, coalesce(c.counted, 0) as counted, coalesce(a.actual, 0) as actual
          from actual a full outer join counted c using (business_id, livemode, resource, key)
          where coalesce(c.counted, 0) <> coalesce(a.actual, 0)`,
    describe: (r) => `${owner(r)}: the list counters say ${r.counted} ${r.resource} rows of ${r.key} but there are ${r.actual}`,
  },
];

export async function verifyLedger(em: EntityManager): Promise<{ ok: boolean; problems: string[] }> {
  const connection = em.getConnection();
  const problems: string[] = [];
  for (const check of [...checks, ...disputeChecks]) {
    const rows = await connection.execute<Record<string, unknown>[]>(check.sql);
    problems.push(...rows.map(check.describe));
  }
  return { ok: problems.length === 0, problems };
}
