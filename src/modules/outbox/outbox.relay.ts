import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import type { OutboxDispatcher } from './outbox.dispatcher.js';

/** The channel the `outbox_notify` trigger signals when an unclaimed row commits. */
const CHANNEL = 'outbox';
const RECONNECT_MS = 1000;

/**
 * Sweeps the outbox whenever PostgreSQL says an unclaimed row committed, and every `pollMs` regardless
 * (claims that ran out, a notification lost while the listening connection was down). Runs in every
 * worker process; concurrent relays share the work through `for update skip locked` claims.
 */
export function startOutboxRelay(dispatcher: OutboxDispatcher, orm: MikroORM, log: Logger, pollMs = 1000): () => Promise<void> {
  let stopped = false;
  let signalled = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    signalled = true;
    wake?.();
  };
  const pause = () =>
    new Promise<void>((resolve) => {
      if (signalled || stopped) return resolve();
      const timer = setTimeout(done, pollMs);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const loop = (async () => {
    while (!stopped) {
      signalled = false;
      try {
        while (!stopped && (await dispatcher.relayOnce()) > 0) {
          /* drain */
        }
      } catch (err) {
        log.warn({ err }, 'outbox relay sweep failed');
      }
      await pause();
    }
  })();
  const listener = listen(orm, notify, log, () => stopped);
  return async () => {
    stopped = true;
    notify();
    await loop;
    await listener.close();
  };
}

/** Holds one pooled connection LISTENing on the channel, and gets another after it fails (a restarted database). */
function listen(orm: MikroORM, onNotify: () => void, log: Logger, stopped: () => boolean) {
  /** The connection LISTENing now, and how to give it back exactly once. */
  let listening: { client: PoolClient; release: () => void } | null = null;
  let retry: NodeJS.Timeout | undefined;
  const again = () => {
    if (!stopped()) retry = setTimeout(connect, RECONNECT_MS);
  };
  async function connect() {
    try {
      const pool = (await orm.em.getConnection().getNativeClient()) as unknown as Pool;
      const held = await pool.connect();
      let released = false;
      const release = (err?: Error) => {
        if (released) return;
        released = true;
        if (listening?.client === held) listening = null;
        held.release(err);
      };
      held.on('notification', onNotify);
      held.on('error', (err) => {
        // Also raised after close() gave the connection back and the pool then ended it: nothing to do.
        if (released) return;
        // Before LISTEN finished, its failing query takes the retry path below; schedule only one.
        const wasListening = listening?.client === held;
        log.warn({ err }, 'outbox relay lost its listening connection; reconnecting');
        release(err);
        if (wasListening) again();
      });
      await held.query(`listen ${CHANNEL}`).catch((err) => {
        release(err);
        throw err;
      });
      if (stopped()) return release();
      listening = { client: held, release };
      onNotify(); // rows committed while nobody listened
    } catch (err) {
      log.warn({ err }, 'outbox relay could not listen; polling until it can');
      again();
    }
  }
  void connect();
  return {
    async close() {
      clearTimeout(retry);
      if (listening) {
        const { client, release } = listening;
        await client.query(`unlisten ${CHANNEL}`).catch(() => {});
        release();
      }
    },
  };
}
