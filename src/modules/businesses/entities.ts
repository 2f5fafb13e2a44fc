import { Business } from './business.entity.js';
import { ApiKey } from './api-key.entity.js';

/** This module's MikroORM entities, for the composition root (src/main/database.ts) to register. */
export const businessesEntities = [Business, ApiKey];
