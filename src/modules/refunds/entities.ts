import { Refund } from './refund.entity.js';
import { RefundReservePart } from './refund-reserve-part.entity.js';

/** This module's MikroORM entities, for the composition root (src/main/database.ts) to register. */
export const refundsEntities = [Refund, RefundReservePart];
