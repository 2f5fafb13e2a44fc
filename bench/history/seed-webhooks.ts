/**
 * The history seed's events and webhooks: an event for every move the service records one for, with the
 * payload its module writes; the outbox row that fanned each out (long dispatched); and two endpoints
 * subscribed to everything. The first has received every event (1 % after a retry, 0.5 % failed after all
 * 7 attempts). The second, added later, has received the last `recovery_deliveries` events, of which the
 * first `recovery_failed` since 12 days ago failed (an outage, for `POST /webhooks/:id/recover`) and 1 %
 * of those older than 14 days failed too.
 */
import { PAYOUT_ID, PAYOUT_REJECTED, PROCESSOR_REFUND_ID, REFUND_DECLINED, REFUND_REASON, refundEnd, refundId, withdrawalEnd, withdrawalId } from './seed-money.js';
import { ATTEMPT_OFFSETS, decimals, iso, seedId } from './sql.js';

/** `refund.*`'s payload (refund.events.ts) with its status, the rest of its keys from `extra` (a jsonb). */
const refundPayload = (status: string, at: string, extra = `'{}'::jsonb`) => `jsonb_build_object('refundId', ${refundId}, 'sessionId', s.id,
  'amount', s.total, 'reason', ${REFUND_REASON}, 'status', ${status}, 'timestamp', ${iso(at)}) || ${extra}`;

/** `withdrawal.paid` or `withdrawal.failed` (withdrawal.events.ts), by the withdrawal's status. */
const withdrawalPayload = `jsonb_build_object('withdrawalId', ${withdrawalId}, 'amount', w.amount, 'amountInDecimals', ${decimals('w.amount')},
  'currency', 'USD', 'destinationType', 'wallet', 'status', w.status, 'timestamp', ${iso(withdrawalEnd)}) || case w.status
    when 'completed' then jsonb_build_object('processorTransactionId', ${PAYOUT_ID}) else jsonb_build_object('failureReason', ${PAYOUT_REJECTED}) end`;

export const EVENTS = `
  insert into events (id, business_id, livemode, type, payload, created_at)
  select ev.id, p.business_id, p.livemode, ev.type, ev.payload, ev.at from (
    select ${seedId('evt', 's.paid_at', 'event-paid', 's.i')} as id, 'checkout.succeeded' as type, s.paid_at as at,
      jsonb_build_object('sessionId', s.id, 'amount', s.total, 'amountInDecimals', ${decimals('s.total')}, 'currency', 'USD',
        'customerEmail', s.email, 'customerName', s.customer_name, 'timestamp', ${iso('s.paid_at')}, 'shipping', null) as payload
    from seed_sessions s, seed_params p where s.kind = 'paid'
    union all
    select ${seedId('evt', 's.paid_at', 'event-declined', 's.i')}, 'checkout.failed', s.paid_at,
      jsonb_build_object('sessionId', s.id, 'amount', s.total, 'currency', 'USD', 'customerEmail', s.email, 'failureCode', 'card_declined',
        'failureMessage', 'Your card was declined.', 'timestamp', ${iso('s.paid_at')})
    from seed_sessions s, seed_params p where s.kind = 'failed'
    union all
    select ${seedId('evt', 's.refund_at', 'event-refund', 's.i')}, 'refund.created', s.refund_at, ${refundPayload(`'pending'`, 's.refund_at')}
    from seed_sessions s, seed_params p where s.refund_status is not null
    union all
    select ${seedId('evt', refundEnd, 'event-refund-end', 's.i')}, 'refund.' || s.refund_status, ${refundEnd},
      ${refundPayload('s.refund_status', refundEnd, `case s.refund_status when 'completed' then jsonb_build_object('processorRefundId', ${PROCESSOR_REFUND_ID})
        else jsonb_build_object('failureReason', ${REFUND_DECLINED}) end`)}
    from seed_sessions s, seed_params p where s.refund_status is not null
    union all
    select ${seedId('evt', withdrawalEnd, 'event-withdrawal', 'w.j')}, case w.status when 'completed' then 'withdrawal.paid' else 'withdrawal.failed' end,
      ${withdrawalEnd}, ${withdrawalPayload}
    from seed_withdrawals w, seed_params p where w.status in ('completed', 'failed')
  ) ev cross join seed_params p order by ev.at, ev.id`;

/** The seeded events of the business (every one of them is older than the seed's `now`). */
const SEEDED_EVENTS = `events e cross join seed_params p
  where e.business_id = p.business_id and e.livemode = p.livemode and e.created_at >= p.start_at and e.created_at < p.now`;

/** Each event's fan-out, as the relay leaves it: claimed, dispatched (claimed, so no NOTIFY fires for it). */
export const OUTBOX = `
  insert into outbox (message, created_at, dispatched_at, attempts, claimed_until)
  select jsonb_build_object('kind', 'event.fanout', 'eventId', e.id), e.created_at, e.created_at + interval '20 milliseconds', 1,
    e.created_at + interval '30 seconds'
  from ${SEEDED_EVENTS} order by e.created_at, e.id`;

/** The two endpoints; `?` are the main endpoint's id, url and sealed secret, then the recovery endpoint's. */
export const ENDPOINTS = `
  insert into webhook_endpoints (id, business_id, livemode, url, events, enabled, description, secret_sealed, created_at, updated_at)
  select x.id, p.business_id, p.livemode, x.url, '["*"]', true, x.description, x.sealed, x.created_at, x.created_at
  from seed_params p cross join lateral (values
    (?, ?, 'Orders', ?, p.start_at - interval '1 day'),
    (?, ?, 'Fulfilment', ?, coalesce((select min(r.created_at) from (select e.created_at from ${SEEDED_EVENTS}
      order by e.created_at desc limit (select recovery_deliveries from seed_params)) r), p.start_at) - interval '1 hour')
  ) as x(id, url, description, sealed, created_at)`;

/** The body `deliveryBody` stores for an event: both handler styles' keys. */
const BODY = `json_build_object('id', ev.id, 'eventId', ev.id, 'eventType', ev.type, 'type', ev.type, 'createdAt', ${iso('ev.created_at')},
  'sequence', ev.sequence, 'livemode', ev.livemode, 'payload', ev.payload, 'data', ev.payload)::text`;

/**
 * The deliveries of `events` (a query of events numbered `rn` in time order) to `endpoint`, and each one's
 * attempts, in one statement: `failed` is when a delivery failed all 7 attempts; otherwise it succeeded,
 * at the second attempt when `retried`.
 */
const deliveries = (tag: string, endpoint: string, events: string, failed: string, retried: string) => `
  with ev as (${events}),
  d as (
    insert into webhook_deliveries (id, event_id, event_created_at, endpoint_id, business_id, livemode, generation, status, body, attempt_count,
      last_status_code, last_error, next_attempt_at, created_at, updated_at, completed_at)
    select ${seedId('whd', 'ev.created_at', tag, 'ev.rn')}, ev.id, ev.created_at, ${endpoint}, p.business_id, p.livemode, 0, o.status, ${BODY}, o.attempts,
      case when o.status = 'failed' then 500 else 200 end, case when o.status = 'failed' then 'HTTP 500' end, null,
      ev.created_at + interval '20 milliseconds', o.done, o.done
    from ev cross join seed_params p
    cross join lateral (select case when ${failed} then 'failed' else 'succeeded' end as status,
      case when ${failed} then 7 when ${retried} then 2 else 1 end as attempts) a
    cross join lateral (select a.status, a.attempts, ev.created_at + interval '100 milliseconds' + ${ATTEMPT_OFFSETS}[a.attempts] as done) o
    order by ev.created_at, ev.id
    returning id, status, attempt_count, created_at)
  insert into webhook_attempts (delivery_id, attempt_number, attempted_at, status_code, duration_ms, response_body, error, succeeded)
  select d.id, n, d.created_at + interval '10 milliseconds' + ${ATTEMPT_OFFSETS}[n], case when x.ok then 200 else 500 end, 40 + n * 3,
    case when x.ok then 'ok' else 'Internal Server Error' end, case when not x.ok then 'HTTP 500' end, x.ok
  from d cross join lateral generate_series(1, d.attempt_count) n cross join lateral (select d.status = 'succeeded' and n = d.attempt_count as ok) x
  order by d.created_at, n`;

export const MAIN_DELIVERIES = deliveries(
  'delivery-main',
  'p.main_endpoint_id',
  `select e.id, e.type, e.payload, e.livemode, e.created_at, e.sequence, row_number() over (order by e.created_at, e.id) as rn from ${SEEDED_EVENTS}`,
  `ev.created_at < p.now - interval '2 days' and ev.rn % 200 = 17`,
  `ev.rn % 100 = 3`,
);

export const RECOVERY_DELIVERIES = deliveries(
  'delivery-recovery',
  'p.recovery_endpoint_id',
  `select r.*, row_number() over (order by r.created_at, r.id) as rn,
     count(*) filter (where r.created_at >= p.now - interval '12 days') over (order by r.created_at, r.id) as outage_rank
   from (select e.id, e.type, e.payload, e.livemode, e.created_at, e.sequence from ${SEEDED_EVENTS}
         order by e.created_at desc, e.id desc limit (select recovery_deliveries from seed_params)) r cross join seed_params p`,
  `(ev.created_at >= p.now - interval '12 days' and ev.outage_rank <= p.recovery_failed)
     or (ev.created_at < p.now - interval '14 days' and ev.rn % 100 = 37)`,
  'false',
);
