import type { WithdrawalResource } from './withdrawal.schemas.js';

/** A withdrawal as the API document shows it, typed by its response schema. */
const T = '2026-11-21T09:30:00.000Z';
const T2 = '2026-11-21T09:31:12.000Z';

export const withdrawalExample: WithdrawalResource = {
  id: 'wd_0190f4c2a7e07b3c9d1e2f3a4b5c6d30',
  amountInCents: 12550,
  status: 'completed',
  destinationType: 'wallet',
  destinationDetails: '{"walletEmail":"payouts@example.com"}',
  livemode: false,
  requestedAt: T,
  updatedAt: T2,
  completedAt: T2,
  processorTransactionId: 'po_sim_0190f4c2a7e07b3c',
};
