import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ApiKey } from '../modules/businesses/api-key.entity.js';
import { Business } from '../modules/businesses/business.entity.js';
import { WithdrawalMethod } from '../modules/businesses/withdrawal-method.entity.js';
import { CheckoutSession, SessionItem } from '../modules/checkout/session.entity.js';
import { Event } from '../modules/events/event.entity.js';
import { Balance, LedgerEntry, LedgerTransaction } from '../modules/ledger/ledger.entity.js';
import { OutboxEntry } from '../modules/outbox/outbox.entity.js';
import { Reserve } from '../modules/reserves/reserve.entity.js';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../modules/webhooks/webhook.entity.js';
import { Refund } from '../modules/refunds/refund.entity.js';
import { RefundReservePart } from '../modules/refunds/refund-reserve-part.entity.js';
import { Withdrawal } from '../modules/withdrawals/withdrawal.entity.js';
import { Dispute, DisputeReservePart } from '../modules/disputes/dispute.entity.js';
import { migrationsList } from './migrations/index.js';

export const entities = [
  Business,
  ApiKey,
  WithdrawalMethod,
  CheckoutSession,
  SessionItem,
  Event,
  OutboxEntry,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
  Balance,
  LedgerTransaction,
  LedgerEntry,
  Reserve,
  Withdrawal,
  Refund,
  RefundReservePart,
  Dispute,
  DisputeReservePart,
];

export function ormOptions(databaseUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    // Migrations are hand-written SQL; no schema snapshot files are kept.
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false },
    // A request or activity forks its own context; the global one must never carry state.
    allowGlobalContext: false,
    pool: { min: 0, max: 10 },
    debug: false,
    // The migrator's progress lines are noise in service and test output; a process with DEBUG_ORM=1
    // passes a logger that shows them (src/main/runtime.ts).
    logger: () => undefined,
    ...overrides,
  });
}

export async function openDatabase(databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  return MikroORM.init(ormOptions(databaseUrl, overrides));
}

/** Versioned migrations run at start; the schema is never diffed and altered at run time. */
export async function migrate(orm: MikroORM): Promise<void> {
  await orm.migrator.up();
}
