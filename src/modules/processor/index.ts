/**
 * What other code uses of the processor module (the processor port, its modes and the simulator): the rest
 * is the module's own, and eslint.config.js refuses an import of it from outside (docs/architecture.md, "A
 * module's face").
 */
export { INVALID_CARD_NUMBER, normaliseCardNumber, parseCard } from './card.rules.js';
export {
  NO_WITHDRAWAL_RAIL_MESSAGE,
  acquirerOf,
  livePaymentsNotice,
  logLivePayments,
  refusingLive,
  requireLivePayments,
  requireLiveWithdrawals,
} from './live-mode.rules.js';
export { byMode } from './processor.modes.js';
export {
  AcquirerConfigurationError,
  AcquirerRefusedError,
  DECLINE_MESSAGES,
  InvalidCardError,
  ProcessorUnavailableError,
} from './processor.port.js';
export type {
  AcquirerDisputeReference,
  BrowserChargeReading,
  BrowserChargeSteps,
  CardDetails,
  CardToken,
  ChargeLookup,
  ChargeOutcome,
  DeclineCode,
  EvidenceReview,
  EvidenceSubmission,
  PaymentProcessor,
  PayoutOutcome,
  PayoutReference,
  PayoutRequest,
  RefundOutcome,
} from './processor.port.js';
export { postgresChargeBook } from './simulator/charge-book.store.js';
export { simulatedChargeId, simulatorProcessor, simulatorWithBook } from './simulator/charges.simulator.js';
export { simulatedPayout } from './simulator/payouts.simulator.js';
