/**
 * What `ledger verify`'s checks share (ledger-verify.service.ts runs them): each is one query that returns
 * the offenders, and each offender becomes one line naming it.
 */
export interface Check {
  sql: string;
  describe: (row: Record<string, unknown>) => string;
}

export const owner = (r: Record<string, unknown>) => `business ${r.business_id} (${r.livemode ? 'live' : 'test'})`;

/** Each business's and mode's entries summed, business account by business account. */
export const ENTRY_SUMS = `
  select business_id, livemode,
    coalesce(sum(amount) filter (where account = 'available'), 0)::bigint as available,
    coalesce(sum(amount) filter (where account = 'reserved'), 0)::bigint as reserved,
    coalesce(sum(amount) filter (where account = 'pending_withdrawal'), 0)::bigint as pending_withdrawal,
    coalesce(sum(amount) filter (where account = 'refunds_in_flight'), 0)::bigint as refunds_in_flight
  from ledger_entries group by business_id, livemode`;

/** What a reserve still holds. */
export const HELD = `reserve_amount_in_cents - consumed_amount_in_cents - released_amount_in_cents`;
