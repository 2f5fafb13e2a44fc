import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { FieldError } from '../domain/errors.js';
import type { OutboxEntry } from './outbox/index.js';
import type { PaymentProcessor } from './processor/index.js';

/**
 * What a module's operations are built from (`Operation<AppDeps>`, src/http/operation.ts); created once
 * per process in src/main and handed to them by the API's composition (src/api/app.ts). Declared here,
 * beside the modules that use it, so that neither they nor the HTTP toolkit import the composition.
 */
export interface AppDeps {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  log: Logger;
  /** Absolute origin of the hosted checkout pages, without a trailing slash. */
  checkoutBaseUrl: string;
  /** The processor, by mode (src/main/payment-processor.ts): the API's pay tokenises the card with it. */
  processor: PaymentProcessor;
  /**
   * Hands outbox rows a committed transaction wrote, claimed with `claimForFastPath`, to this process's
   * dispatcher (fire and forget; the relay covers a crash before it finishes).
   */
  afterCommit: (entries: OutboxEntry[]) => void;
  /**
   * The session's dispute id, or null, for the session's single read (`disputeIdOfSession` in disputes/,
   * wired in src/main/runtime.ts). A dispute names its session, so disputes/ sits above checkout/; asked
   * through here, checkout's read needs no import back up.
   */
  disputeOfSession: (em: EntityManager, sessionId: string) => Promise<string | null>;
  /**
   * The status of the session's dispute when it blocks a refund, else null (`disputeBlockingRefund` in
   * disputes/, wired in src/main/runtime.ts), asked in the refund's transaction. A dispute's opening asks
   * refunds/ whether the session is refunded, so disputes/ sits above refunds/; asked through here, a
   * refund's check needs no import back up.
   */
  disputeBlockingRefund: (tx: EntityManager, sessionId: string) => Promise<string | null>;
  /**
   * What a real acquirer would refuse in a dispute's evidence, by the name a dispute records its acquirer
   * under (`{ stripe: stripeEvidenceProblems }`, wired in src/main/runtime.ts). The Stripe connector reads
   * disputes/, so disputes/ asks for its limits through here rather than importing it back.
   */
  acquirerEvidenceRules: Readonly<Record<string, (evidence: Readonly<Record<string, string | null>>) => FieldError[]>>;
}
