import type { Logger } from 'pino';
import type { LivePayments } from '../../config.js';
import type { PaymentProcessor } from './processor.port.js';
import { simulatorProcessor } from './charges.simulator.js';

export * from './processor.port.js';

/**
 * The processor a process uses. Only the simulator exists; in production it serves live keys only with
 * ALLOW_SIMULATED_LIVE_PAYMENTS (`livePayments: 'simulated'`, said loudly at start-up so nobody mistakes
 * it for an acquirer), and otherwise live money moves are refused before they reach it (live-mode.rules.ts).
 */
export function paymentProcessor(opts: { env: string; livePayments?: LivePayments; log?: Logger }): PaymentProcessor {
  if (opts.env === 'production' && opts.livePayments !== 'refused') {
    opts.log?.warn('no acquirer adapter is configured: the card simulator is serving LIVE API keys, and no real money moves');
  }
  return simulatorProcessor;
}
