import type { MikroORM, Options } from '@mikro-orm/postgresql';
import { openOrm } from '../db/orm.js';
import { businessesEntities } from '../modules/businesses/entities.js';
import { withdrawalsEntities } from '../modules/withdrawals/entities.js';
import { checkoutEntities } from '../modules/checkout/entities.js';
import { eventsEntities } from '../modules/events/entities.js';
import { outboxEntities } from '../modules/outbox/entities.js';
import { ledgerEntities } from '../modules/ledger/entities.js';
import { reservesEntities } from '../modules/reserves/entities.js';
import { webhooksEntities } from '../modules/webhooks/entities.js';
import { refundsEntities } from '../modules/refunds/entities.js';
import { disputesEntities } from '../modules/disputes/entities.js';

/**
 * Every module's entities, collected here, in the composition root: src/db/ knows no module (it sits
 * below them all), and a module registers what it owns by exporting it from its `entities.ts`.
 */
export const entities = [...businessesEntities, ...withdrawalsEntities, ...checkoutEntities, ...eventsEntities, ...outboxEntities, ...ledgerEntities, ...reservesEntities, ...webhooksEntities, ...refundsEntities, ...disputesEntities];

/** The service's database: its entities over `databaseUrl` (src/db/orm.ts has the rest of the configuration). */
export function openDatabase(databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  return openOrm(databaseUrl, entities, overrides);
}
