import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { OutboxEntry } from '../modules/outbox/outbox.entity.js';
import type { ApiKeyCache } from '../modules/businesses/api-key.cache.js';
import type { KnownKey } from './auth.js';

/** What the HTTP layer is built from; created once per process in src/main. */
export interface AppDeps {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  log: Logger;
  /** Absolute origin of the hosted checkout pages, without a trailing slash. */
  checkoutBaseUrl: string;
  /**
   * Hands outbox rows a committed transaction wrote, claimed with `claimForFastPath`, to this process's
   * dispatcher (fire and forget; the relay covers a crash before it finishes).
   */
  afterCommit: (entries: OutboxEntry[]) => void;
  /** The process's API key cache (LISTEN/NOTIFY-invalidated); without one, every request reads its key. */
  apiKeys?: ApiKeyCache<KnownKey>;
}
