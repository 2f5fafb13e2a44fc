import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';

/** The channel the `api_key_changes_notify` triggers signal when an API key or a business changes. */
export const API_KEY_CHANNEL = 'api_key_changes';
/** How the listening connection shows in `pg_stat_activity` (operators, and the fail-closed test). */
export const API_KEY_LISTENER_NAME = 'payments-api-key-cache';

export interface ApiKeyCacheOptions {
  /** Keys held at most; the least recently used goes first. */
  maxEntries?: number;
  /** How long an entry is used at most, even without a notification (a bound, not the invalidation). */
  ttlMs?: number;
  /** Wait before listening again after the connection failed. */
  reconnectMs?: number;
  /** How often the listening connection is checked, and how long the check may take. */
  pingMs?: number;
  pingTimeoutMs?: number;
}

export interface ApiKeyCache<T> {
  /** The entry for a key's hash, else what `load` reads (kept only if it found a key that `keep` accepts). */
  get(hash: string, load: () => Promise<T | null>, keep?: (value: T) => boolean): Promise<T | null>;
  /** Whether entries are served: only while the connection LISTENs (fail closed otherwise). */
  readonly listening: boolean;
  close(): Promise<void>;
}

export const API_KEY_CACHE_DEFAULTS = { maxEntries: 10_000, ttlMs: 60_000, reconnectMs: 1_000, pingMs: 2_000, pingTimeoutMs: 1_000 };

/**
 * An in-process cache of API keys with their businesses, invalidated through PostgreSQL LISTEN/NOTIFY on
 * a connection of its own. Any change to `api_keys` or `businesses` (a revocation, an approval, new fees)
 * notifies at its commit and empties every API process's cache. It fails closed: entries are served only
 * while that connection is LISTENing; when it drops (or stops answering its ping), the cache empties and
 * every request reads the database until LISTEN is back. A lookup that raced a notification or an outage
 * is not kept (the generation check). Unknown keys are never kept, so a new key works at once.
 */
export function createApiKeyCache<T>(orm: MikroORM, log: Logger, options: ApiKeyCacheOptions = {}): ApiKeyCache<T> {
  const o = { ...API_KEY_CACHE_DEFAULTS, ...options };
  const entries = new Map<string, { value: T; expiresAt: number }>();
  let generation = 0;
  /** The connection being opened or LISTENing; entries are served only once it LISTENs. */
  let current: pg.PoolClient | null = null;
  let listening = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let ping: NodeJS.Timeout | undefined;
  const forget = () => {
    generation++;
    entries.clear();
  };
  /** Gives the connection back to the pool to be closed (never reused: it LISTENed). */
  const discard = (client: pg.PoolClient, err?: Error) => {
    client.removeListener('notification', forget);
    try {
      client.release(err ?? true);
    } catch {
      // released already
    }
  };

  /** The connection failed: stop serving entries at once, then listen again. */
  function lost(client: pg.PoolClient, err?: Error) {
    if (client !== current) return; // an old connection's late event
    const wasListening = listening;
    current = null;
    listening = false;
    forget();
    clearInterval(ping);
    discard(client, err);
    if (wasListening) log.warn({ err }, 'API key cache lost its listening connection; reading every key from the database until it is back');
    else log.warn({ err }, 'API key cache could not listen; reading every key from the database');
    if (!closed) retry = setTimeout(connect, o.reconnectMs);
  }

  /** One of the ORM's pooled connections, held for as long as it LISTENs (as the outbox relay holds one). */
  async function connect() {
    if (closed || current) return;
    let client: pg.PoolClient;
    try {
      const pool = (await orm.em.getConnection().getNativeClient()) as unknown as pg.Pool;
      client = await pool.connect();
    } catch (err) {
      log.warn({ err }, 'API key cache could not get a connection to listen on; reading every key from the database');
      if (!closed) retry = setTimeout(connect, o.reconnectMs);
      return;
    }
    if (closed) return discard(client);
    current = client;
    client.on('notification', forget);
    client.on('error', (err) => lost(client, err));
    client.once('end', () => lost(client));
    try {
      await client.query(`set application_name = '${API_KEY_LISTENER_NAME}'`);
      await client.query(`listen ${API_KEY_CHANNEL}`);
    } catch (err) {
      return lost(client, err as Error);
    }
    if (client !== current) return; // lost (or closed) while LISTEN was on its way
    forget(); // whatever changed while nobody listened
    listening = true;
    ping = setInterval(() => {
      // A connection that stopped answering (a silent network failure) counts as lost.
      const timeout = setTimeout(() => lost(client, new Error('listening connection did not answer')), o.pingTimeoutMs);
      client.query('select 1').then(
        () => clearTimeout(timeout),
        (err) => {
          clearTimeout(timeout);
          lost(client, err);
        },
      );
    }, o.pingMs);
    ping.unref();
  }
  void connect();

  return {
    get listening() {
      return listening;
    },
    async get(hash, load, keep = () => true) {
      if (listening) {
        const hit = entries.get(hash);
        if (hit && hit.expiresAt > Date.now()) {
          entries.delete(hash); // most recently used last: eviction takes the first
          entries.set(hash, hit);
          return hit.value;
        }
        if (hit) entries.delete(hash);
      }
      const seen = generation;
      const value = await load();
      if (value !== null && keep(value) && listening && seen === generation) {
        entries.set(hash, { value, expiresAt: Date.now() + o.ttlMs });
        if (entries.size > o.maxEntries) entries.delete(entries.keys().next().value!);
      }
      return value;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(ping);
      const client = current;
      current = null;
      listening = false;
      forget();
      if (client) discard(client);
    },
  };
}
