import type { Logger } from 'pino';
import type { Config, LivePayments, LiveWithdrawals } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import type { PaymentProcessor } from './processor.port.js';

/**
 * Live mode fails closed. A live key's money moves go to the configured acquirer (ACQUIRER=stripe);
 * without one, a production deployment answers them with the simulator only when
 * ALLOW_SIMULATED_LIVE_PAYMENTS says so (config.livePayments = 'simulated'). Otherwise ('refused') every
 * request that would move live money (pay a live session, create a live refund or withdrawal) is refused
 * at the API edge with 403 permission_error, before anything is written, and the worker's processor
 * declines any live move that reaches it anyway (a workflow from before the setting changed, an API
 * configured otherwise). Withdrawals have a rail of their own (config.liveWithdrawals): a real acquirer
 * that has none to the spec's destinations leaves live withdrawals refused.
 */

/** One line for the start-up banner and logs: which mode is in force, and why. */
export function livePaymentsNotice(config: Pick<Config, 'env' | 'livePayments' | 'liveWithdrawals' | 'acquirer'>): string {
  if (config.acquirer) {
    const where = config.acquirer.apiBase ? ` at ${config.acquirer.apiBase} (STRIPE_API_BASE)` : '';
    const withdrawals =
      config.liveWithdrawals === 'simulated'
        ? 'live withdrawals simulated (WITHDRAWAL_RAIL=simulator)'
        : 'live withdrawals refused: no withdrawal rail';
    return `live payments: ${config.acquirer.name}${where}, ACQUIRER=${config.acquirer.name}; ${withdrawals}`;
  }
  if (config.livePayments === 'refused') {
    return 'live payments: refused, no acquirer configured (live keys can read, but cannot pay, refund or withdraw)';
  }
  return config.env === 'production'
    ? 'live payments: simulated — ALLOW_SIMULATED_LIVE_PAYMENTS=true; live keys use the card simulator and no real money moves'
    : `live payments: simulated — NODE_ENV=${config.env}; live keys use the card simulator and no real money moves`;
}

/** Logged by every process at start: a warning in production, where either answer matters to the operator. */
export function logLivePayments(log: Logger, config: Pick<Config, 'env' | 'livePayments' | 'liveWithdrawals' | 'acquirer'>): void {
  const level = config.env === 'production' ? 'warn' : 'info';
  log[level]({ livePayments: config.livePayments, acquirer: config.acquirer?.name ?? null }, livePaymentsNotice(config));
}

/** Who takes a payment in this mode, as the Temporal UI's summary of a payment names it. */
export function acquirerOf(config: Pick<Config, 'livePayments' | 'acquirer'>, livemode: boolean): string {
  if (!livemode) return 'simulator';
  if (config.acquirer) return config.acquirer.name;
  return config.livePayments === 'refused' ? 'none (live payments refused)' : 'simulator';
}

/** At the edge of every route that would move live money: 403 when live payments are refused. */
export function requireLivePayments(livePayments: LivePayments, livemode: boolean): void {
  if (livemode && livePayments === 'refused') throw new DomainError('live_payments_refused');
}

/**
 * At the edge of a live withdrawal: refused as a live payment when no live money moves at all (today's
 * answer), and with its own words when payments have an acquirer but withdrawals no rail.
 */
export function requireLiveWithdrawals(live: { livePayments: LivePayments; liveWithdrawals: LiveWithdrawals }, livemode: boolean): void {
  requireLivePayments(live.livePayments, livemode);
  if (livemode && live.liveWithdrawals === 'refused') throw new DomainError('live_withdrawals_refused');
}

/** What the worker's guard answers a live move that reached it while live payments are refused: the API's words (the catalogue's `live_payments_refused`; test/processor/live-mode.test.ts holds the two equal). */
export const LIVE_REFUSED_MESSAGE = 'Live payments are not enabled on this server: no acquirer is configured';
/** What a payout answers when live withdrawals have no rail: the catalogue's `live_withdrawals_refused`. */
export const NO_WITHDRAWAL_RAIL_MESSAGE = 'Live withdrawals are not enabled on this server: no withdrawal rail is configured';

/**
 * `processor` with live mode kept from the simulator wherever live payments are refused. Every method of
 * the port is listed here, so a new one must be decided, not passed through by default:
 * - `charge`: a live charge is declined (`processing_error`, the session fails, nothing charged);
 * - `prepareCharge`: nothing is opened for a live charge (it will be declined);
 * - `payout`, `refund`: declined (the money returns to the balance it came from);
 * - `reviewDisputeEvidence`: a live dispute is never decided by the simulator's test phrases: its
 *   evidence stays under review until an operator enters the acquirer's decision (`dispute decide`);
 * - `retrieveCharge`: passes through; it moves no money, and a charge made before live payments were
 *   refused must still be found, never failed while it stands;
 * - `tokenize`: passes through; it moves no money, and the API refuses a live pay before reading the card;
 * - `disputeNotice`: passes through; it reads a charge the processor made, and with live payments refused
 *   the only live charges it can see were simulated before (a real acquirer's notices come as its own
 *   events, or through `npm run admin -- dispute open`, which the processor never sees);
 * - `submitDisputeEvidence`, `acceptDispute`: pass through; they move no money, and the simulator's do nothing.
 * Test mode goes through unchanged.
 */
export function refusingLive(processor: PaymentProcessor): PaymentProcessor {
  return {
    name: processor.name,
    tokenize: (card, livemode) => processor.tokenize(card, livemode),
    prepareCharge: async (request) => (request.livemode ? { status: 'prepared', reference: null } : processor.prepareCharge(request)),
    charge: async (request) =>
      request.livemode ? { status: 'declined', code: 'processing_error', message: LIVE_REFUSED_MESSAGE } : processor.charge(request),
    retrieveCharge: (charge) => processor.retrieveCharge(charge),
    payout: async (request) => (request.livemode ? { status: 'declined', message: LIVE_REFUSED_MESSAGE } : processor.payout(request)),
    refund: async (request) => (request.livemode ? { status: 'declined', message: LIVE_REFUSED_MESSAGE } : processor.refund(request)),
    disputeNotice: (charge) => processor.disputeNotice(charge),
    reviewDisputeEvidence: async (review) => (review.livemode ? null : processor.reviewDisputeEvidence(review)),
    submitDisputeEvidence: (submission) => processor.submitDisputeEvidence(submission),
    acceptDispute: (dispute) => processor.acceptDispute(dispute),
  };
}
