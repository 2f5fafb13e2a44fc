import { Dispute, DisputeReservePart } from './dispute.entity.js';

/** This module's MikroORM entities, for the composition root (src/main/database.ts) to register. */
export const disputesEntities = [Dispute, DisputeReservePart];
