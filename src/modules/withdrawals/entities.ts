import { Withdrawal } from './withdrawal.entity.js';
import { WithdrawalMethod } from './withdrawal-method.entity.js';

/** This module's MikroORM entities, for the composition root (src/main/database.ts) to register. */
export const withdrawalsEntities = [Withdrawal, WithdrawalMethod];
