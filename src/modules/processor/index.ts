import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { PaymentProcessor } from './processor.port.js';
import { simulatorProcessor, simulatorWithBook } from './charges.simulator.js';
import { postgresChargeBook } from './charge-book.store.js';
import { NO_WITHDRAWAL_RAIL_MESSAGE, refusingLive } from './live-mode.rules.js';
import { byMode } from './processor.modes.js';
import { simulatedPayout } from './payouts.simulator.js';
import { createStripeClient } from '../stripe/stripe.client.js';
import { createStripeProcessor } from '../stripe/stripe.processor.js';

export * from './processor.port.js';

type LiveSetting = Pick<Config, 'env' | 'livePayments' | 'liveWithdrawals' | 'acquirer'>;

/**
 * The processor a process uses, by mode. Test keys: the simulator (the worker's recording its charges in
 * the database, `orm`; an API process only tokenises). Live keys: the configured acquirer (ACQUIRER=stripe,
 * its withdrawals on the rail configured apart, WITHDRAWAL_RAIL); else the simulator where live payments
 * are simulated (said loudly at start-up in production so nobody mistakes it for an acquirer); else the
 * simulator with every live money move declined (live-mode.rules.ts), behind the API's own refusal.
 */
export function paymentProcessor(config: LiveSetting, opts: { orm?: MikroORM; log?: Logger } = {}): PaymentProcessor {
  const simulator = opts.orm ? simulatorWithBook(postgresChargeBook(opts.orm)) : simulatorProcessor;
  if (config.acquirer) {
    const stripe = createStripeProcessor(createStripeClient(config.acquirer), {
      payout: config.liveWithdrawals === 'simulated' ? simulatedPayout : undefined,
      noRailMessage: NO_WITHDRAWAL_RAIL_MESSAGE,
    });
    return byMode(simulator, stripe);
  }
  if (config.livePayments === 'refused') return refusingLive(simulator);
  if (config.env === 'production') {
    opts.log?.warn('no acquirer adapter is configured: the card simulator is serving LIVE API keys, and no real money moves');
  }
  return simulator;
}
