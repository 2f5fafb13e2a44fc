import { createLogger } from '../../src/log.js';
import { recordEvent } from '../../src/modules/events/event.service.js';
import { claimForFastPath, createOutboxDispatcher } from '../../src/modules/outbox/outbox.dispatcher.js';
import { OutboxEntry } from '../../src/modules/outbox/outbox.entity.js';
import { startOutboxRelay } from '../../src/modules/outbox/outbox.relay.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { eventually } from '../support/webhook-receiver.js';

/**
 * The relay is woken by PostgreSQL the moment an unclaimed row commits, not at its next poll; rows a
 * request claimed for its own fast path are left to that request. The polls here are an hour apart, so
 * only a notification can explain a prompt dispatch.
 */
const seen: string[] = [];
const log = createLogger('silent');
const HOUR = 3_600_000;

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const sql = (query: string, params: unknown[] = []) => stack.orm.em.getConnection().execute(query, params);
const dispatcher = () =>
  createOutboxDispatcher({
    orm: stack.orm,
    temporal: stack.temporal,
    taskQueue: stack.config.temporal.taskQueue,
    log,
    handlers: { 'event.fanout': async (m) => void seen.push(m.eventId) },
  });
const commitEvent = () =>
  stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, { businessId: biz.id, livemode: false }, 'refund.created', { n: 1 }).id);
const outboxRowOf = async (eventId: string) => (await sql(`select * from outbox where message->>'eventId' = ?`, [eventId]))[0];

describe('outbox relay', () => {
  it('dispatches an unclaimed row as soon as it commits, woken by NOTIFY', async () => {
    const stop = startOutboxRelay(dispatcher(), stack.orm, log, HOUR);
    try {
      await new Promise((r) => setTimeout(r, 500)); // the relay's first sweep and its LISTEN
      const eventId = await commitEvent();
      await eventually(() => seen.includes(eventId), 5_000);
      await eventually(async () => (await outboxRowOf(eventId)).dispatched_at !== null, 5_000);
    } finally {
      await stop();
    }
  });

  it('listens again after its connection is cut (a restarted database)', async () => {
    const stop = startOutboxRelay(dispatcher(), stack.orm, log, HOUR);
    try {
      await eventually(async () => (await listeners()).length === 1, 5_000);
      await sql('select pg_terminate_backend(pid) from pg_stat_activity where query ilike ?', ['listen outbox%']);
      await eventually(async () => (await listeners()).length === 1, 10_000);
      const eventId = await commitEvent();
      await eventually(() => seen.includes(eventId), 5_000);
    } finally {
      await stop();
    }
  });

  it('retries a failing row with a backoff, not at every sweep (Temporal down)', async () => {
    const tries: { eventId: string; at: number }[] = [];
    const failing = createOutboxDispatcher({
      orm: stack.orm,
      temporal: stack.temporal,
      taskQueue: stack.config.temporal.taskQueue,
      log,
      handlers: {
        'event.fanout': async (m) => {
          tries.push({ eventId: m.eventId, at: Date.now() });
          throw new Error('Temporal is unavailable');
        },
      },
    });
    const stop = startOutboxRelay(failing, stack.orm, log, 100);
    try {
      const eventId = await commitEvent();
      await new Promise((r) => setTimeout(r, 3_600));
      const mine = tries.filter((t) => t.eventId === eventId).map((t) => t.at);
      // At once, then 1 s and 2 s later: three tries in 3.6 s where the sweeps alone would make 36.
      expect(mine).toHaveLength(3);
      expect(mine[1] - mine[0]).toBeGreaterThanOrEqual(900);
      expect(mine[2] - mine[1]).toBeGreaterThanOrEqual(1_900);
      const row = await outboxRowOf(eventId);
      expect(row.dispatched_at).toBeNull();
      expect(row.last_error).toBe('Temporal is unavailable');
      const [{ wait }] = await sql(`select extract(epoch from claimed_until - now()) as wait from outbox where id = ?`, [row.id]);
      expect(Number(wait)).toBeGreaterThan(0); // the next try is 4 s after the third
    } finally {
      await stop();
    }
  });

  it('leaves a row claimed for a fast path to that fast path, which marks it dispatched', async () => {
    const stop = startOutboxRelay(dispatcher(), stack.orm, log, 100);
    try {
      const em = stack.orm.em.fork();
      const entry = claimForFastPath(em.create(OutboxEntry, { message: { kind: 'event.fanout', eventId: 'evt_claimed' }, createdAt: new Date() }));
      await em.flush();
      await new Promise((r) => setTimeout(r, 1_000)); // ten sweeps
      expect(seen).not.toContain('evt_claimed');
      await dispatcher().dispatchClaimed([entry]);
      expect(seen).toContain('evt_claimed');
      const [row] = await sql('select dispatched_at, attempts from outbox where id = ?', [entry.id]);
      expect(row.dispatched_at).not.toBeNull();
      expect(row.attempts).toBe(0); // never claimed by the relay
    } finally {
      await stop();
    }
  });
});

/** Backends LISTENing for the relay, seen from PostgreSQL. */
async function listeners() {
  return sql(`select pid from pg_stat_activity where query ilike 'listen outbox%' and state = 'idle' and datname = current_database()`);
}
