import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { OutboxEntry, OutboxMessage } from './outbox.entity.js';
import { signalWithStart, signalWorkflow, startWorkflowOnce } from './workflow-message.transport.js';

type Handler<K extends OutboxMessage['kind']> = (message: Extract<OutboxMessage, { kind: K }>) => Promise<void>;
export type OutboxHandlers = { [K in OutboxMessage['kind']]?: Handler<K> };
type RowId = string | number;

interface ClaimedRow {
  id: RowId;
  message: OutboxMessage;
  /** When the row was written: rows of one money move share it (their `at`). */
  created_at?: Date | string;
}

/** How long a claim keeps other dispatchers off a row; a crashed claimer's rows come back after it. */
const CLAIM_SECONDS = 30;
/** Rows one dispatcher hands to Temporal at once: enough to overlap round trips, few enough not to flood it. */
const CONCURRENCY = 16;
/** The longest a failing row waits before it is tried again. */
const MAX_BACKOFF_SECONDS = 10;
/** Fast-path rows are marked dispatched together, one statement per this many milliseconds. */
const MARK_BATCH_MS = 10;

/**
 * Claims a row for the fast path of the request writing it, before its transaction commits: the claim
 * rides on the insert, so the fast path needs no query of its own, and the relay leaves the row alone
 * until the claim runs out (then a crash between commit and dispatch costs a delay, never the row).
 */
export function claimForFastPath(entry: OutboxEntry): OutboxEntry {
  entry.claimedUntil = new Date(Date.now() + CLAIM_SECONDS * 1000);
  return entry;
}

/**
 * Delivers outbox rows. Every side effect is idempotent (deterministic workflow ids; a second start is
 * "already started"; a signal carries the record as it was, which a workflow adopts only if newer), so a
 * row dispatched twice after a crash does no harm; claims only avoid wasted work.
 */
export function createOutboxDispatcher(deps: { orm: MikroORM; temporal: Client; taskQueue: string; log: Logger; handlers?: OutboxHandlers }) {
  const handlers: OutboxHandlers = {
    // A row dispatched again after its workflow finished (a pay call may have started and closed it
    // first) must not start a second run: "already started" is the harmless answer.
    'workflow.start': async (message) => {
      await startWorkflowOnce(deps.temporal, deps.taskQueue, message);
    },
    'workflow.signal': (message) => signalWorkflow(deps.temporal, message),
    'workflow.signalWithStart': (message) => signalWithStart(deps.temporal, deps.taskQueue, message),
    ...deps.handlers,
  };
  const execute: Execute = <T extends object[]>(sql: string, params: unknown[]) => deps.orm.em.getConnection().execute<T>(sql, params);
  // `in (?)`: the driver expands an array parameter into a list, which `any(?)` would misread.
  const markDispatched = (ids: RowId[]) => execute('update outbox set dispatched_at = now() where id in (?)', [ids]);
  const markLater = batched(markDispatched, deps.log);

  /** Runs one row's handler; a failure is recorded and the claim given back, so the relay retries it. */
  async function handle(row: ClaimedRow): Promise<boolean> {
    const handler = handlers[row.message.kind] as Handler<typeof row.message.kind> | undefined;
    if (!handler) return false; // no dispatcher for this kind in this process: leave it for one that has
    try {
      await handler(row.message as never);
      return true;
    } catch (err) {
      deps.log.warn({ err, outboxId: row.id }, 'outbox dispatch failed; the relay will retry');
      await recordFailure(execute, row, err as Error, deps.log);
      return false;
    }
  }

  /** Returns how many rows were dispatched (not merely claimed: a failed row is not progress). */
  async function claimAndRun(sql: string, params: unknown[]): Promise<number> {
    const rows = await execute<ClaimedRow[]>(sql, params);
    const done = await inLanes(rows, handle);
    if (done.length) await markDispatched(done);
    return done.length;
  }

  return {
    /** Fast path for rows `claimForFastPath` claimed, right after the commit that wrote them. */
    async dispatchClaimed(entries: OutboxEntry[]): Promise<void> {
      const done = await inLanes(entries.map((e) => ({ id: e.id, message: e.message, created_at: e.createdAt })), handle);
      if (done.length) await markLater(done);
    },
    /** Dispatches committed rows by id, claiming them first (rows written without a claim). */
    async dispatch(ids: RowId[]): Promise<void> {
      if (ids.length) await claimAndRun(claimSql('id in (?)'), [ids, ids.length]);
    },
    /**
     * The relay's sweep: anything unclaimed, or left behind by a crash or an outage. Returns how many it
     * dispatched, so a relay drains while it makes progress and, with Temporal down, waits for its next
     * poll instead of re-claiming the same failing rows in a tight loop.
     */
    relayOnce: (batch = 100): Promise<number> => claimAndRun(claimSql('true'), [batch]),
  };
}
export type OutboxDispatcher = ReturnType<typeof createOutboxDispatcher>;

type Execute = <T extends object[] = object[]>(sql: string, params: unknown[]) => Promise<T>;

/** Claims up to `limit` rows that are due and match `filter`, for CLAIM_SECONDS, counting the attempt. */
const claimSql = (filter: string) => `
    update outbox set attempts = attempts + 1, claimed_until = now() + interval '${CLAIM_SECONDS} seconds'
    where id in (
      select id from outbox
      where dispatched_at is null and (claimed_until is null or claimed_until < now()) and ${filter}
      order by id limit ? for update skip locked)
    returning id, message, created_at`;

/**
 * Rows that must run one after another, in the order they were written: the fan-outs of the events one
 * money move recorded together (one business, one instant: a dispute's `created` and `funds_withdrawn`,
 * a won one's `funds_reinstated` and `closed`), so their first attempts (and `npm start`'s lines) go out
 * in the order the events happened. Every other row is a group of its own, run beside the others: events
 * of separate moves keep their fan-outs concurrent (a business's burst of payments is not queued behind
 * one another), and every event carries its `sequence` for receivers to sort by.
 */
function inOrder(rows: ClaimedRow[]): ClaimedRow[][] {
  const groups = new Map<string, ClaimedRow[]>();
  // In the order written: an UPDATE … RETURNING (the claim) returns its rows in no particular order.
  const written = [...rows].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0));
  for (const row of written) {
    const together = row.message.kind === 'event.fanout' && row.message.businessId && row.created_at;
    const key = together ? `fanout:${(row.message as { businessId: string }).businessId}:${new Date(row.created_at!).getTime()}` : `row:${row.id}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()];
}

/** Handles rows CONCURRENCY groups at a time, each group's rows in the order they were written; returns the ids of those handled. */
async function inLanes(rows: ClaimedRow[], handle: (row: ClaimedRow) => Promise<boolean>): Promise<RowId[]> {
  const done: RowId[] = [];
  const groups = inOrder(rows);
  let next = 0;
  const lane = async () => {
    while (next < groups.length) {
      for (const row of groups[next++]) if (await handle(row)) done.push(row.id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, groups.length) }, lane));
  return done;
}

/**
 * Keeps a failed row's error and backs it off by its attempts (1 s, doubling, then every 10 s; the
 * exponent capped so the interval cannot overflow however long it fails): rows that keep failing would
 * otherwise be claimed again at every sweep and, a hundred of them, fill every batch ahead of healthy rows.
 */
async function recordFailure(execute: Execute, row: ClaimedRow, err: Error, log: Logger): Promise<void> {
  await execute(
    `update outbox set last_error = ?,
       claimed_until = now() + least(interval '1 second' * power(2, least(greatest(attempts - 1, 0), 4)), interval '${MAX_BACKOFF_SECONDS} seconds')
     where id = ?`,
    [String(err.message).slice(0, 500), row.id],
  ).catch((bookkeeping) => {
    // The row keeps its claim and comes back when it runs out; the rest of the batch is still marked.
    log.warn({ err: bookkeeping, outboxId: row.id }, 'recording an outbox failure failed');
  });
}

/**
 * Collects ids from many callers and writes them with one statement per window. Each caller's promise
 * settles with the write that carried its ids; a failed write leaves the rows claimed, and the relay
 * dispatches them again (harmlessly) once the claim runs out.
 */
function batched(write: (ids: RowId[]) => Promise<unknown>, log: Logger) {
  let pending: RowId[] = [];
  let flush: Promise<void> | null = null;
  return (ids: RowId[]): Promise<void> => {
    pending.push(...ids);
    flush ??= new Promise((resolve) => setTimeout(resolve, MARK_BATCH_MS)).then(async () => {
      const batch = pending;
      pending = [];
      flush = null;
      await write(batch).catch((err) => log.warn({ err }, 'marking outbox rows dispatched failed; the relay will redo them'));
    });
    return flush;
  };
}
