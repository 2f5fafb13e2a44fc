import { Event } from './event.entity.js';

/** This module's MikroORM entities, for the composition root (src/main/database.ts) to register. */
export const eventsEntities = [Event];
