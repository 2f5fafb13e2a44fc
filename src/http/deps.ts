import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

/** What the HTTP layer is built from; created once per process in src/main. */
export interface AppDeps {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  log: Logger;
  /** Absolute origin of the hosted checkout pages, without a trailing slash. */
  checkoutBaseUrl: string;
  /** Hands outbox rows written by a committed transaction to the dispatcher (fire and forget). */
  afterCommit: (outboxIds: (string | number)[]) => void;
}
