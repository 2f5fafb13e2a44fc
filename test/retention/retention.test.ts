/**
 * The retention rules on the real database, with a fixed clock: each rule is applied as of a chosen
 * `before`, and what has outlived its window goes while everything else (money records, events still
 * being delivered, outbox rows not yet dispatched) stays.
 */
import { applyRetention } from '../../src/modules/retention/index.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });
const biz = useBusiness(stack);

const DAY = 24 * 3600 * 1000;
/**
 * The fixed "now" the rules are applied at, and the cut-offs it gives: this file's start, so that only
 * the rows it writes, back-dated, are old enough (the database is shared with the worker's other files).
 */
const NOW = new Date();
const daysBefore = (days: number) => new Date(NOW.getTime() - days * DAY);

let endpointId: string;
beforeAll(async () => {
  const res = await stack.http.post('/api/webhooks', { url: 'https://receiver.example/hook', events: ['*'] }, { key: biz.testKey });
  endpointId = res.body.data.endpoint.id;
});

/** An event `age` days old with one delivery of `status` (and an attempt when it was tried). */
async function event(name: string, age: number, status: 'succeeded' | 'failed' | 'pending' | null) {
  const id = `evt_${name.padEnd(32, '0')}`;
  const at = daysBefore(age);
  await sql(stack, `insert into events (id, business_id, livemode, type, payload, created_at) values (?, ?, false, 'refund.created', '{}', ?)`, [id, biz.id, at]);
  if (status) {
    const delivery = `whd_${name.padEnd(32, '0')}`;
    await sql(
      stack,
      `insert into webhook_deliveries (id, event_id, endpoint_id, business_id, livemode, generation, status, body, attempt_count, created_at, updated_at)
       values (?, ?, ?, ?, false, 0, ?, '{}', 1, ?, ?)`,
      [delivery, id, endpointId, biz.id, status, at, at],
    );
    if (status !== 'pending') {
      await sql(stack, `insert into webhook_attempts (delivery_id, attempt_number, attempted_at, duration_ms, succeeded) values (?, 1, ?, 5, ?)`, [delivery, at, status === 'succeeded']);
    }
  }
  return id;
}

const exists = async (table: string, column: string, value: string) => (await sql(stack, `select 1 from ${table} where ${column} = ?`, [value])).length === 1;

describe('retention: events, with their deliveries and attempts, after 30 days', () => {
  it('deletes those older than the window and keeps the rest, and the event counters follow', async () => {
    const old = await event('a1', 31, 'succeeded');
    const oldFailed = await event('a2', 45, 'failed');
    const oldUndelivered = await event('a3', 60, null);
    const young = await event('a4', 29, 'succeeded');
    const stillTrying = await event('a5', 31, 'pending');

    expect(await applyRetention(stack.orm, { rule: 'events', before: daysBefore(30).toISOString() })).toEqual({ deleted: 3, more: false });
    for (const gone of [old, oldFailed, oldUndelivered]) expect(await exists('events', 'id', gone)).toBe(false);
    expect(await exists('webhook_deliveries', 'event_id', old)).toBe(false);
    expect(await exists('webhook_attempts', 'delivery_id', `whd_${'a1'.padEnd(32, '0')}`)).toBe(false);
    expect(await exists('events', 'id', young)).toBe(true);
    expect(await exists('webhook_attempts', 'delivery_id', `whd_${'a4'.padEnd(32, '0')}`)).toBe(true);
    expect(await exists('events', 'id', stillTrying)).toBe(true);
    // The event log's total follows the deletion (the counters' delete trigger); ledger verify agrees.
    expect((await stack.http.get('/api/webhooks/events', { key: biz.testKey })).body.data.meta.total).toBe(2);
    expect((await verifyLedger(stack.orm.em.fork())).problems.filter((p) => p.includes(biz.id))).toEqual([]);

    // Applied again: nothing more to delete.
    expect(await applyRetention(stack.orm, { rule: 'events', before: daysBefore(30).toISOString() })).toEqual({ deleted: 0, more: false });
  });

  it('keeps an event whose fan-out is still in the outbox', async () => {
    const waiting = await event('b1', 40, null);
    const [{ id: fanout }] = await sql(stack, `insert into outbox (message, created_at) values (?::jsonb, ?) returning id`, [
      JSON.stringify({ kind: 'event.fanout', eventId: waiting }),
      daysBefore(40),
    ]);
    try {
      // The only event old enough is this one, and its fan-out holds it: nothing is deleted.
      expect(await applyRetention(stack.orm, { rule: 'events', before: daysBefore(30).toISOString() })).toEqual({ deleted: 0, more: false });
      expect(await exists('events', 'id', waiting)).toBe(true);
    } finally {
      // Not this test's to dispatch: a row left undispatched would hold the event for every later file.
      await sql(stack, 'delete from outbox where id = ?', [fanout]);
      await sql(stack, 'delete from events where id = ?', [waiting]);
    }
  });
});

describe('retention: outbox rows 7 days after their dispatch', () => {
  it('deletes dispatched rows older than the window, never one not yet dispatched', async () => {
    const row = (dispatched: Date | null, marker: string) =>
      sql(stack, `insert into outbox (message, created_at, dispatched_at) values (?::jsonb, ?, ?) returning id`, [
        JSON.stringify({ kind: 'event.fanout', eventId: marker }),
        daysBefore(20),
        dispatched,
      ]).then(([r]) => String(r.id));
    const old = await row(daysBefore(8), 'evt_old');
    const recent = await row(daysBefore(6), 'evt_recent');
    const never = await row(null, 'evt_never');
    try {
      // Other files' rows were dispatched as they ran, not back-dated: only `old` is past the window.
      expect(await applyRetention(stack.orm, { rule: 'outbox', before: daysBefore(7).toISOString() })).toEqual({ deleted: 1, more: false });
      expect(await exists('outbox', 'id', old)).toBe(false);
      expect(await exists('outbox', 'id', recent)).toBe(true);
      expect(await exists('outbox', 'id', never)).toBe(true);
    } finally {
      await sql(stack, 'delete from outbox where id in (?, ?)', [recent, never]); // not this test's to dispatch
    }
  });
});
