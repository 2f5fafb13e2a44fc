import { createLogger } from '../../src/log.js';
import { recordEvent } from '../../src/modules/events/index.js';
import { claimForFastPath, createOutboxDispatcher, OutboxEntry, startOutboxRelay } from '../../src/modules/outbox/index.js';
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

// A database of its own: the relay claims the oldest due rows of the whole outbox, and rows of kinds this
// dispatcher has no handler for, left by files before it in a shared database, stay claimed and fill its
// batches (300 such rows made the first test miss its row; production's relay handles every kind).
const stack = useStack({}, { worker: false, ownDatabase: 'outbox_relay' });
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
/** A dispatcher that counts the relay's finished sweeps, so a test waits on them rather than on the clock. */
function counted(inner: ReturnType<typeof createOutboxDispatcher>) {
  let sweeps = 0;
  return {
    dispatcher: { ...inner, relayOnce: async (batch?: number) => inner.relayOnce(batch).finally(() => sweeps++) },
    sweeps: () => sweeps,
  };
}
const commitEvent = () =>
  stack.orm.em.fork().transactional(async (tx) => recordEvent(tx, { businessId: biz.id, livemode: false }, 'refund.created', { n: 1 }).id);
const outboxRowOf = async (eventId: string) => (await sql(`select * from outbox where message->>'eventId' = ?`, [eventId]))[0];

describe('outbox relay', () => {
  it('dispatches an unclaimed row as soon as it commits, woken by NOTIFY', async () => {
    const relay = counted(dispatcher());
    const stop = startOutboxRelay(relay.dispatcher, stack.orm, log, HOUR);
    try {
      // Its first sweep is over and it is listening: the next is an hour away unless a notification comes.
      await eventually(async () => relay.sweeps() >= 1 && (await listeners()).length === 1, 10_000);
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
      await sql('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike ?', ['listen outbox%']);
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
      const mine = () => tries.filter((t) => t.eventId === eventId).map((t) => t.at);
      await eventually(() => mine().length >= 3, 20_000);
      // At once, then 1 s and 2 s later, while the relay swept every 100 ms: three tries, not thirty.
      const [first, second, third] = mine();
      expect(second - first).toBeGreaterThanOrEqual(900);
      expect(third - second).toBeGreaterThanOrEqual(1_900);
      expect(mine().length).toBe(3);
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
    const relay = counted(dispatcher());
    const stop = startOutboxRelay(relay.dispatcher, stack.orm, log, 100);
    try {
      const em = stack.orm.em.fork();
      const entry = claimForFastPath(em.create(OutboxEntry, { message: { kind: 'event.fanout', eventId: 'evt_claimed' }, createdAt: new Date() }));
      await em.flush();
      const before = relay.sweeps();
      await eventually(() => relay.sweeps() >= before + 10, 20_000); // ten sweeps since the row committed
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
