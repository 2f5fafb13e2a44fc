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
  /** How long a key found nowhere is answered as unknown without reading it again (emptied by any change too). */
  missTtlMs?: number;
  /** Wait before listening again after the connection failed. */
  reconnectMs?: number;
  /** How often the listening connection is checked, and how long the check may take. */
  pingMs?: number;
  pingTimeoutMs?: number;
}

export interface ApiKeyCache<T> {
  /**
   * The entry for a key's hash, else what `load` reads: kept if it found a key that `keep` accepts, or
   * briefly remembered as unknown if it found none.
   */
  get(hash: string, load: () => Promise<T | null>, keep?: (value: T) => boolean): Promise<T | null>;
  /** Whether entries are served: only while the connection LISTENs (fail closed otherwise). */
  readonly listening: boolean;
  close(): Promise<void>;
}

export const API_KEY_CACHE_DEFAULTS = { maxEntries: 10_000, ttlMs: 60_000, missTtlMs: 10_000, reconnectMs: 1_000, pingMs: 2_000, pingTimeoutMs: 1_000 };

/**
 * An in-process cache of API keys with their businesses, invalidated through PostgreSQL LISTEN/NOTIFY on
 * a connection of its own. Any change to `api_keys` or `businesses` (a revocation, an approval, new fees)
 * notifies at its commit and empties every API process's cache. It fails closed: entries are served only
 * while that connection is LISTENing; when it drops (or stops answering its ping), the cache empties and
 * every request reads the database until LISTEN is back. A lookup that raced a notification or an outage
 * is not kept (the generation check). An unknown key is remembered as unknown for a few seconds, so a
 * flood of one wrong key (a client still sending a revoked key, a guesser) reads the database once, not
 * once a request; the notification of any change empties those too, so a new key works at once. They are
 * held apart from the known keys, so a flood of made-up keys evicts none of those.
 */
export function createApiKeyCache<T>(orm: MikroORM, log: Logger, options: ApiKeyCacheOptions = {}): ApiKeyCache<T> {
  const o = { ...API_KEY_CACHE_DEFAULTS, ...options };
  const entries = new KeyEntries<T>(o.maxEntries, o.ttlMs);
  const misses = new KeyEntries<null>(o.maxEntries, o.missTtlMs);
  const listener = new ChangeListener(orm, log, o, () => {
    entries.forget();
    misses.forget();
  });
  void listener.connect();

  return {
    get listening() {
      return listener.listening;
    },
    async get(hash, load, keep = () => true) {
      if (listener.listening) {
        const hit = entries.fresh(hash) ?? misses.fresh(hash);
        if (hit) return hit.value;
      }
      const seen = entries.generation;
      const value = await load();
      if (listener.listening && seen === entries.generation) {
        if (value === null) misses.keep(hash, null);
        else if (keep(value)) entries.keep(hash, value);
      }
      return value;
    },
    close: () => listener.close(),
  };
}

/**
 * The entries, least recently used first, each used for a bounded time. `generation` counts the times
 * they were all forgotten, so a lookup that started before one is not kept after it.
 */
class KeyEntries<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  generation = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  forget(): void {
    this.generation++;
    this.entries.clear();
  }

  /** The entry for a hash if it has not expired, moved to most recently used (eviction takes the first). */
  fresh(hash: string): { value: T } | undefined {
    const hit = this.entries.get(hash);
    if (!hit) return undefined;
    this.entries.delete(hash);
    if (hit.expiresAt <= Date.now()) return undefined;
    this.entries.set(hash, hit);
    return hit;
  }

  keep(hash: string, value: T): void {
    this.entries.set(hash, { value, expiresAt: Date.now() + this.ttlMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/**
 * One of the ORM's pooled connections, held for as long as it LISTENs (as the outbox relay holds one).
 * `changed` runs whenever keys may have changed unheard: a notification, a lost connection, a new LISTEN.
 */
class ChangeListener {
  /** The connection being opened or LISTENing; entries are served only once it LISTENs. */
  private current: pg.PoolClient | null = null;
  listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private ping: NodeJS.Timeout | undefined;

  constructor(
    private readonly orm: MikroORM,
    private readonly log: Logger,
    private readonly o: Pick<typeof API_KEY_CACHE_DEFAULTS, 'reconnectMs' | 'pingMs' | 'pingTimeoutMs'>,
    private readonly changed: () => void,
  ) {}

  async connect(): Promise<void> {
    if (this.closed || this.current) return;
    let client: pg.PoolClient;
    try {
      const pool = (await this.orm.em.getConnection().getNativeClient()) as unknown as pg.Pool;
      client = await pool.connect();
    } catch (err) {
      this.log.warn({ err }, 'API key cache could not get a connection to listen on; reading every key from the database');
      this.connectLater();
      return;
    }
    if (this.closed) return this.discard(client);
    this.current = client;
    client.on('notification', this.changed);
    client.on('error', (err) => this.lost(client, err));
    client.once('end', () => this.lost(client));
    try {
      await client.query(`set application_name = '${API_KEY_LISTENER_NAME}'`);
      await client.query(`listen ${API_KEY_CHANNEL}`);
    } catch (err) {
      return this.lost(client, err as Error);
    }
    if (client !== this.current) return; // lost (or closed) while LISTEN was on its way
    this.changed(); // whatever changed while nobody listened
    this.listening = true;
    this.pingEvery(client);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearInterval(this.ping);
    const client = this.current;
    this.current = null;
    this.listening = false;
    this.changed();
    if (client) this.discard(client);
  }

  /** A connection that stopped answering (a silent network failure) counts as lost. */
  private pingEvery(client: pg.PoolClient): void {
    this.ping = setInterval(() => {
      const timeout = setTimeout(() => this.lost(client, new Error('listening connection did not answer')), this.o.pingTimeoutMs);
      client.query('select 1').then(
        () => clearTimeout(timeout),
        (err) => {
          clearTimeout(timeout);
          this.lost(client, err);
        },
      );
    }, this.o.pingMs);
    this.ping.unref();
  }

  /** The connection failed: stop serving entries at once, then listen again. */
  private lost(client: pg.PoolClient, err?: Error): void {
    if (client !== this.current) return; // an old connection's late event
    const wasListening = this.listening;
    this.current = null;
    this.listening = false;
    this.changed();
    clearInterval(this.ping);
    this.discard(client, err);
    if (wasListening) this.log.warn({ err }, 'API key cache lost its listening connection; reading every key from the database until it is back');
    else this.log.warn({ err }, 'API key cache could not listen; reading every key from the database');
    this.connectLater();
  }

  private connectLater(): void {
    if (!this.closed) this.retry = setTimeout(() => void this.connect(), this.o.reconnectMs);
  }

  /** Gives the connection back to the pool to be closed (never reused: it LISTENed). */
  private discard(client: pg.PoolClient, err?: Error): void {
    client.removeListener('notification', this.changed);
    try {
      client.release(err ?? true);
    } catch {
      // released already
    }
  }
}
