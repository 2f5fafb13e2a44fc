import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { newId } from '../../domain/ids.js';
import { NOTABLE } from '../../log.js';
import { type EventType, eventSummary } from '../events/index.js';
import { deliveryBody } from './delivery.view.js';
import { startWorkflowOnce } from '../outbox/index.js';
import { deliveryWorkflowStart } from './delivery.start.js';
import { subscribesTo } from './event-subscriptions.rules.js';
import type { FirstAttempts } from './first-attempts.service.js';

export interface FanoutDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  log: Logger;
  retryDelaysMs?: number[];
  /** A worker's: sends each new delivery's first attempt at once, just before its workflow's start. */
  firstAttempts?: Pick<FirstAttempts, 'send'>;
  /** Test seam: runs after the deliveries are committed and before any attempt or workflow starts (crash tests). */
  afterDeliveriesCommitted?: () => Promise<void> | void;
}

// Every delivery in one statement, which also returns every generation-0 delivery not yet finished (the
// ones it inserted, and any a crashed run left, its first attempt perhaps sent but its workflow perhaps
// not started): one round trip however many endpoints listen.
const FAN_OUT = `
  with inserted as (
    insert into webhook_deliveries
      (id, event_id, event_created_at, endpoint_id, business_id, livemode, generation, status, body, attempt_count, created_at, updated_at)
    select d.id, ?, ?, d.endpoint_id, ?, ?, 0, 'pending', ?, 0, now(), now()
    from jsonb_to_recordset(?::jsonb) as d(id text, endpoint_id text)
    on conflict (event_id, endpoint_id, generation) do nothing
    returning id, endpoint_id, attempt_count)
  select id, endpoint_id, attempt_count from inserted
  union all
  select id, endpoint_id, attempt_count from webhook_deliveries
  where event_id = ? and generation = 0 and status in ('pending', 'delivering')`;

// The event and its business's endpoints in one round trip: every enabled endpoint of the event's business
// and mode that existed when it happened (an endpoint receives what happens while it exists, even if the
// fan-out itself was delayed); which of them subscribe is decided here, by the same rule as everywhere.
const FAN_OUT_SOURCE = `
  select e.id, e.business_id, e.livemode, e.type, e.payload, e.test, e.created_at, e.sequence,
    coalesce((select json_agg(json_build_object('id', w.id, 'events', w.events))
      from webhook_endpoints w
      where w.business_id = e.business_id and w.livemode = e.livemode and w.enabled and w.deleted_at is null
        and w.created_at <= e.created_at), '[]'::json) as endpoints
  from events e where e.id = ?`;

interface FanOutSource {
  id: string;
  business_id: string;
  livemode: boolean;
  type: EventType;
  payload: Record<string, unknown>;
  test: boolean;
  created_at: Date | string;
  /** bigint, as text. */
  sequence: string;
  endpoints: { id: string; events: string[] }[];
}

/** Workflow starts one process's fan-outs run at once: the relay's lanes share them, so a flood of events
 * puts no more starts in flight than one event's deliveries did when they started one after another. */
const STARTS_IN_FLIGHT = 16;

/**
 * The outbox handler for `event.fanout`. Safe to run any number of times for one event:
 * 1. one delivery (generation 0) per enabled, subscribed endpoint of the event's business and mode,
 *    inserted with ON CONFLICT DO NOTHING on (event, endpoint, generation), so a re-run creates none twice;
 * 2. in a worker, each new delivery's first attempt, claimed and sent at once (`firstAttempts`), its
 *    answer not awaited;
 * 3. a workflow for every generation-0 delivery not yet finished, started with a deterministic id and
 *    REJECT_DUPLICATE, so a re-run never starts one twice. It owns the schedule: it reads what the first
 *    attempt came to (waiting for one still under way) or, if none was sent, sends it.
 * The outbox row is marked dispatched only after the starts, so a process that dies before leaves it for
 * the relay, which repeats the whole handler. Each attempt is claimed once, so none is sent twice.
 */
export function createEventFanout(deps: FanoutDeps) {
  const slots = limiter(STARTS_IN_FLIGHT);
  return async function fanOut(message: { eventId: string }): Promise<void> {
    const em = deps.orm.em.fork();
    const [source] = await em.execute<FanOutSource[]>(FAN_OUT_SOURCE, [message.eventId]);
    if (!source) {
      deps.log.warn({ eventId: message.eventId }, 'event to fan out does not exist');
      return;
    }
    const event = {
      id: source.id,
      type: source.type,
      payload: source.payload,
      test: source.test,
      livemode: source.livemode,
      createdAt: new Date(source.created_at),
      sequence: Number(source.sequence),
    };
    // Every payment, refund and withdrawal outcome passes here once (again only if a fan-out is redone).
    const summary = event.test ? null : eventSummary(event.type, event.payload);
    if (summary) deps.log.info({ ...NOTABLE, eventId: event.id, type: event.type, businessId: source.business_id, livemode: event.livemode }, summary);
    const subscribed = source.endpoints.filter((e) => subscribesTo(e.events, event.type));
    const owner = { eventId: event.id, businessId: source.business_id, livemode: event.livemode };
    const rows = await em.execute<{ id: string; endpoint_id: string; attempt_count: number }[]>(FAN_OUT, [
      event.id,
      event.createdAt,
      owner.businessId,
      event.livemode,
      deliveryBody(event),
      JSON.stringify(subscribed.map((endpoint) => ({ id: newId('whd'), endpoint_id: endpoint.id }))),
      event.id,
    ]);
    await deps.afterDeliveriesCommitted?.();
    // The first POSTs leave before the starts: a delivery's first attempt waits for no round trip to
    // Temporal, and the starts wait for one short claim. Issued first, the starts' encoding (a gRPC call's
    // CPU each, on this one thread) ran ahead of the claim's answer: an event's tenth POST left about
    // 4 ms after its delivery was written, where one endpoint's left after 2.
    await deps.firstAttempts?.send(rows.filter((row) => row.attempt_count === 0).map((row) => row.id));
    // All at once: each start is a round trip to Temporal, and the last one's wait is the fan-out's latency.
    await Promise.all(
      rows.map((row) =>
        slots(() => startWorkflowOnce(deps.temporal, deps.taskQueue, deliveryWorkflowStart({ ...owner, id: row.id, endpointId: row.endpoint_id }, deps.retryDelaysMs))),
      ),
    );
  };
}

/** Runs at most `size` of the functions it is given at once, the rest in the order they came. */
function limiter(size: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running < size) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // a finishing run hands its slot over
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
