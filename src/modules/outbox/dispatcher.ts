import type { MikroORM } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { toSearchAttributePairs } from '../../../workflows/search-attributes.js';
import type { OutboxMessage } from './outbox.entity.js';

type Handler<K extends OutboxMessage['kind']> = (message: Extract<OutboxMessage, { kind: K }>) => Promise<void>;
export type OutboxHandlers = { [K in OutboxMessage['kind']]?: Handler<K> };

interface ClaimedRow {
  id: string | number;
  message: OutboxMessage;
}

/** How long a claim keeps other dispatchers off a row; a crashed claimer's rows come back after it. */
const CLAIM_SECONDS = 30;

/**
 * Delivers outbox rows. Every side effect is idempotent (deterministic workflow ids; a second start is
 * "already started"), so a row dispatched twice after a crash does no harm; claims only avoid wasted work.
 */
export function createOutboxDispatcher(deps: { orm: MikroORM; temporal: Client; taskQueue: string; log: Logger; handlers?: OutboxHandlers }) {
  const handlers: OutboxHandlers = {
    'workflow.start': async (message) => {
      try {
        await deps.temporal.workflow.start(message.workflowType, {
          workflowId: message.workflowId,
          taskQueue: deps.taskQueue,
          // A row dispatched again after its workflow finished (a pay call may have started and closed
          // it first) must not start a second run: "already started" is the harmless answer.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: message.args,
          typedSearchAttributes: toSearchAttributePairs(message.searchAttributes ?? {}),
          staticSummary: message.summary,
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
    ...deps.handlers,
  };

  async function claim(sql: string, params: unknown[]): Promise<ClaimedRow[]> {
    return deps.orm.em.getConnection().execute<ClaimedRow[]>(sql, params);
  }

  async function run(rows: ClaimedRow[]): Promise<void> {
    const done: (string | number)[] = [];
    for (const row of rows) {
      const handler = handlers[row.message.kind] as Handler<typeof row.message.kind> | undefined;
      if (!handler) continue; // no dispatcher for this kind in this process: leave it for one that has
      try {
        await handler(row.message as never);
        done.push(row.id);
      } catch (err) {
        deps.log.warn({ err, outboxId: row.id }, 'outbox dispatch failed; the relay will retry');
        await deps.orm.em
          .getConnection()
          .execute('update outbox set last_error = ?, claimed_until = null where id = ?', [String((err as Error).message).slice(0, 500), row.id]);
      }
    }
    if (done.length) {
      // `in (?)`: the driver expands an array parameter into a list, which `any(?)` would misread.
      await deps.orm.em.getConnection().execute('update outbox set dispatched_at = now() where id in (?)', [done]);
    }
  }

  const claimSql = (filter: string) => `
    update outbox set attempts = attempts + 1, claimed_until = now() + interval '${CLAIM_SECONDS} seconds'
    where id in (
      select id from outbox
      where dispatched_at is null and (claimed_until is null or claimed_until < now()) and ${filter}
      order by id limit ? for update skip locked)
    returning id, message`;

  return {
    /** Fast path, right after the commit that wrote these rows. */
    async dispatch(ids: (string | number)[]): Promise<void> {
      if (!ids.length) return;
      await run(await claim(claimSql('id in (?)'), [ids, ids.length]));
    },
    /** The relay's sweep: anything a crash or an outage left behind. Returns how many it handled. */
    async relayOnce(batch = 100): Promise<number> {
      const rows = await claim(claimSql('true'), [batch]);
      await run(rows);
      return rows.length;
    },
  };
}
export type OutboxDispatcher = ReturnType<typeof createOutboxDispatcher>;

/** Sweeps the outbox every `intervalMs` until stopped; runs in every worker process. */
export function startOutboxRelay(dispatcher: OutboxDispatcher, log: Logger, intervalMs = 1000): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      while (!stopped && (await dispatcher.relayOnce()) > 0) {
        /* drain */
      }
    } catch (err) {
      log.warn({ err }, 'outbox relay sweep failed');
    }
  };
  const timer = setInterval(() => {
    running = running.then(tick);
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
