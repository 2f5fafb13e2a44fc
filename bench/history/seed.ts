/**
 * A business's history, written straight into PostgreSQL in minutes instead of through the API in days:
 * `seedHistory` gives an existing business `sessions` paid checkout sessions spread over two years, with
 * everything the service writes around them (seed-money.ts, seed-webhooks.ts). The rows are what the
 * service's own code would have left, so `ledger verify` passes over them and every list reads them as
 * it reads real ones. Used by `npm run bench:history` at a million sessions and by tests at a few thousand.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../src/domain/ids.js';
import type { Owner } from '../../src/modules/ledger/index.js';
import { generateWebhookSecret, sealSecret } from '../../src/modules/webhooks/index.js';
import * as money from './seed-money.js';
import * as webhooks from './seed-webhooks.js';

export interface HistoryShape {
  /** Paid checkout sessions (2 % of them refunded); 3 % as many failed and 5 % as many expired come with them. */
  sessions: number;
  /** How far back the history reaches, in days (730). */
  days?: number;
  /** The recovery endpoint's deliveries: it was added this many events ago (100,000; at most every event). */
  recoveryDeliveries?: number;
  /** Its deliveries that failed in the outage 12 days ago, one event each (`recoveryFailedFor(sessions)`). */
  recoveryFailed?: number;
  /** Where the two endpoints point (`https://receiver.invalid/…` when no receiver is to be reached). */
  endpointUrls?: { main: string; recovery: string };
  /** The key the service opens endpoint secrets with (WEBHOOK_ENCRYPTION_KEY); a random one by default. */
  webhookEncryptionKey?: Buffer;
  /** The end of the history (now): the newest rows are an hour older. */
  now?: Date;
  /** Progress lines (one per step, with its time). */
  log?: (line: string) => void;
}

export interface SeededHistory extends Owner {
  sessions: { paid: number; failed: number; cancelled: number };
  withdrawals: number;
  endpoints: { main: string; recovery: string };
  /** Events whose latest delivery to the recovery endpoint failed since 12 days ago: what one recovery call re-sends. */
  recoveryFailedInWindow: number;
  /** An e-mail that a session search matches a few hundred times (about 300 paid sessions' worth). */
  searchEmail: string;
  /** Each step's time, in the order they ran (ms). */
  stepsMs: Record<string, number>;
  ms: number;
}

const DEFAULT_DAYS = 730;
/** Sessions per customer e-mail, so a search by e-mail matches this many paid sessions (and their unpaid ones). */
const SESSIONS_PER_CUSTOMER = 300;

/**
 * Failed deliveries in the recovery outage for a business of `sessions` paid sessions: half of its events
 * in the 11 days from 12 days ago, at most one recovery call's page (1,000). Give two businesses the
 * smaller one's figure and a recovery call does the same work on both.
 */
export const recoveryFailedFor = (sessions: number, days = DEFAULT_DAYS) => Math.max(1, Math.min(1000, Math.floor(((sessions * 11) / days) * 0.5)));

const steps: [name: string, sql: string][] = [
  ['sessions (plan)', money.SESSIONS],
  ['checkout_sessions', money.CHECKOUT_SESSIONS],
  ['session_items', money.SESSION_ITEMS],
  ['simulator_charges', money.CHARGES],
  ['reserves', money.RESERVES],
  ['refunds', money.REFUNDS],
  ['withdrawals (plan)', money.WITHDRAWALS],
  ['withdrawals', money.WITHDRAWAL_ROWS],
  ['withdrawal_methods', money.WITHDRAWAL_METHOD],
  ['ledger moves (plan)', money.MOVES],
  ['ledger_transactions', money.LEDGER_TRANSACTIONS],
  ['ledger_entries', money.LEDGER_ENTRIES],
  ['balances', money.BALANCE],
  ['events', webhooks.EVENTS],
  ['outbox', webhooks.OUTBOX],
];

const PARAMS = `
  create temp table seed_params on commit drop as
  select b.id as business_id, ?::boolean as livemode, ?::text as nonce, ?::int as paid, ?::int as failed, ?::int as cancelled,
    ?::int as withdrawals, ?::int as customers, ?::timestamptz as now, ?::timestamptz - interval '1 hour' - make_interval(days => ?) as start_at,
    ?::timestamptz - interval '1 hour' as end_at, make_interval(days => ?) as span, b.fee_bps, b.fee_fixed_cents, b.reserve_bps,
    make_interval(secs => b.reserve_hold_ms / 1000.0) as hold,
    (select k.id from api_keys k where k.business_id = b.id and k.mode = ? order by k.created_at, k.id limit 1) as key_id,
    ?::int as recovery_deliveries, ?::int as recovery_failed, ?::text as main_endpoint_id, ?::text as recovery_endpoint_id
  from businesses b where b.id = ?`;

export async function seedHistory(em: EntityManager, owner: Owner, shape: HistoryShape): Promise<SeededHistory> {
  const started = performance.now();
  const days = shape.days ?? DEFAULT_DAYS;
  const now = shape.now ?? new Date();
  const paid = shape.sessions;
  if (!Number.isInteger(paid) || paid < 100) throw new RangeError('a history needs at least 100 paid sessions');
  const sizes = {
    failed: Math.round(paid * 0.03),
    cancelled: Math.round(paid * 0.05),
    withdrawals: Math.max(3, Math.floor(paid / 200)),
    customers: Math.max(1, Math.round(paid / SESSIONS_PER_CUSTOMER)),
  };
  const recoveryFailed = shape.recoveryFailed ?? recoveryFailedFor(paid, days);
  const key = shape.webhookEncryptionKey ?? randomBytes(32);
  const endpoints = { main: newId('wh'), recovery: newId('wh') };
  const urls = shape.endpointUrls ?? { main: 'https://receiver.invalid/orders', recovery: 'https://receiver.invalid/fulfilment' };
  const stepsMs: Record<string, number> = {};
  const run = async (tx: EntityManager, name: string, sql: string, params: unknown[] = []) => {
    const t0 = performance.now();
    await tx.execute(sql, params, 'run');
    stepsMs[name] = Math.round(performance.now() - t0);
    shape.log?.(`  ${name}: ${stepsMs[name]} ms`);
  };
  const recoveryFailedInWindow = await em.fork().transactional(async (tx) => {
    // The plans sort millions of rows (each table is written in time order, as the service writes it): in memory, not on disk.
    await tx.execute(`set local work_mem = '256MB'`, [], 'run');
    await run(tx, 'parameters', PARAMS, [
      owner.livemode, randomBytes(4).toString('hex'), paid, sizes.failed, sizes.cancelled, sizes.withdrawals, sizes.customers,
      now, now, days, now, days, owner.livemode ? 'live' : 'test', shape.recoveryDeliveries ?? 100_000, recoveryFailed,
      endpoints.main, endpoints.recovery, owner.businessId,
    ]);
    const [found] = await tx.execute<{ n: number }[]>('select count(*)::int as n from seed_params where key_id is not null');
    if (found.n !== 1) throw new Error(`business ${owner.businessId} not found, or it has no ${owner.livemode ? 'live' : 'test'} key`);
    for (const [name, sql] of steps) await run(tx, name, sql);
    const seal = (id: string) => sealSecret(key, id, generateWebhookSecret());
    await run(tx, 'webhook_endpoints', webhooks.ENDPOINTS, [
      endpoints.main, urls.main, seal(endpoints.main), endpoints.recovery, urls.recovery, seal(endpoints.recovery),
    ]);
    await run(tx, 'webhook_deliveries + attempts (main endpoint)', webhooks.MAIN_DELIVERIES);
    await run(tx, 'webhook_deliveries + attempts (recovery endpoint)', webhooks.RECOVERY_DELIVERIES);
    const [window] = await tx.execute<{ n: number }[]>(
      `select count(*)::int as n from webhook_deliveries where endpoint_id = ? and status = 'failed' and event_created_at >= ?::timestamptz - interval '12 days'`,
      [endpoints.recovery, now],
    );
    return window.n;
  });
  return {
    ...owner,
    sessions: { paid, failed: sizes.failed, cancelled: sizes.cancelled },
    withdrawals: sizes.withdrawals,
    endpoints,
    recoveryFailedInWindow,
    searchEmail: `buyer${Math.min(7, sizes.customers - 1)}@example.com`,
    stepsMs,
    ms: Math.round(performance.now() - started),
  };
}

/** The tables the seed grows, for VACUUM ANALYZE and for their sizes. */
export const HISTORY_TABLES = [
  'checkout_sessions', 'session_items', 'simulator_charges', 'reserves', 'refunds', 'withdrawals', 'ledger_transactions',
  'ledger_entries', 'balances', 'events', 'outbox', 'webhook_endpoints', 'webhook_deliveries', 'webhook_attempts',
] as const;

/**
 * What autovacuum would do a little later, done now: statistics for the planner (the plans the history
 * is there to show) and the visibility map, so an autovacuum does not land in the middle of a measurement.
 */
export async function vacuumAnalyze(em: EntityManager): Promise<number> {
  const t0 = performance.now();
  await em.getConnection().execute(`vacuum (analyze) ${HISTORY_TABLES.join(', ')}`, [], 'run');
  return Math.round(performance.now() - t0);
}

/** Each history table's rows (all businesses) and size on disk with its indexes (MB). */
export async function tableSizes(em: EntityManager): Promise<Record<string, { rows: number; mb: number }>> {
  const rows = await em.getConnection().execute<{ name: string; rows: string; bytes: string }[]>(
    `select c.relname as name, c.reltuples::bigint::text as rows, pg_total_relation_size(c.oid)::text as bytes
     from pg_class c where c.relname in (${HISTORY_TABLES.map(() => '?').join(', ')}) and c.relkind = 'r'`,
    [...HISTORY_TABLES],
  );
  return Object.fromEntries(rows.map((r) => [r.name, { rows: Number(r.rows), mb: Math.round(Number(r.bytes) / 2 ** 20) }]));
}
