import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import {
  type PaymentProcessor,
  simulatorProcessor,
  simulatorWithBook,
  postgresChargeBook,
  NO_WITHDRAWAL_RAIL_MESSAGE,
  refusingLive,
  byMode,
  simulatedPayout,
} from '../modules/processor/index.js';
import { createStripeClient, createStripeProcessor } from '../modules/stripe/index.js';

type LiveSetting = Pick<Config, 'env' | 'livePayments' | 'liveWithdrawals' | 'acquirer'>;

/**
 * The processor a process uses, by mode; chosen here, where the process is wired, because it names the
 * adapters (the simulator, Stripe) that sit above the port: in the processor module it made the port's
 * module import Stripe's, which imports the port. Test keys: the simulator (the worker's recording its
 * charges in the database, `orm`; an API process only tokenises). Live keys: the configured acquirer
 * (ACQUIRER=stripe, its withdrawals on the rail configured apart, WITHDRAWAL_RAIL); else the simulator where
 * live payments are simulated (said loudly at start-up in production so nobody mistakes it for an
 * acquirer); else the simulator with every live money move declined (live-mode.rules.ts), behind the API's
 * own refusal.
 */
export function paymentProcessor(config: LiveSetting, opts: { orm?: MikroORM; log?: Logger } = {}): PaymentProcessor {
  const simulator = opts.orm ? simulatorWithBook(postgresChargeBook(opts.orm)) : simulatorProcessor;
  if (config.acquirer) {
    const stripe = createStripeProcessor(createStripeClient(config.acquirer), {
      payout: config.liveWithdrawals === 'simulated' ? simulatedPayout : undefined,
      noRailMessage: NO_WITHDRAWAL_RAIL_MESSAGE,
      log: opts.log,
    });
    return byMode(simulator, stripe);
  }
  if (config.livePayments === 'refused') return refusingLive(simulator);
  if (config.env === 'production') {
    opts.log?.warn('no acquirer adapter is configured: the card simulator is serving LIVE API keys, and no real money moves');
  }
  return simulator;
}
