import type { Logger } from 'pino';
import type { PaymentProcessor } from './processor.js';
import { simulatorProcessor } from './simulator.js';

export * from './processor.js';

/**
 * The processor a process uses. Only the simulator exists, and it also serves live keys until a real
 * acquirer adapter does; in production that is said loudly at start-up, so nobody mistakes it for one.
 */
export function paymentProcessor(opts: { env: string; log?: Logger }): PaymentProcessor {
  if (opts.env === 'production') {
    opts.log?.warn('no acquirer adapter is configured: the card simulator is serving LIVE API keys, and no real money moves');
  }
  return simulatorProcessor;
}
