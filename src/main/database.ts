import type { MikroORM, Options } from '@mikro-orm/postgresql';
import { openOrm } from '../db/orm.js';
import { businessesEntities } from '../modules/businesses/index.js';
import { withdrawalsEntities } from '../modules/withdrawals/index.js';
import { checkoutEntities } from '../modules/checkout/index.js';
import { eventsEntities } from '../modules/events/index.js';
import { outboxEntities } from '../modules/outbox/index.js';
import { ledgerEntities } from '../modules/ledger/index.js';
import { reservesEntities } from '../modules/reserves/index.js';
import { webhooksEntities } from '../modules/webhooks/index.js';
import { refundsEntities } from '../modules/refunds/index.js';
import { disputesEntities } from '../modules/disputes/index.js';

/**
 * Every module's entities, collected here, in the composition root: src/db/ knows no module (it sits
 * below them all), and a module registers what it owns by exporting it from its `entities.ts`.
 */
export const entities = [...businessesEntities, ...withdrawalsEntities, ...checkoutEntities, ...eventsEntities, ...outboxEntities, ...ledgerEntities, ...reservesEntities, ...webhooksEntities, ...refundsEntities, ...disputesEntities];

/** The service's database: its entities over `databaseUrl` (src/db/orm.ts has the rest of the configuration). */
export function openDatabase(databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  return openOrm(databaseUrl, entities, overrides);
}
