import { createHash } from 'node:crypto';
import type { PayoutDestination, PayoutOutcome, PayoutRequest } from '../processor.port.js';

/**
 * Paying a withdrawal out (`PaymentProcessor.payout`). Like a charge, a refusal is an outcome and a
 * transient fault throws `ProcessorUnavailableError`. The idempotency key (the withdrawal id) makes a
 * retried payout answer the first one's result instead of paying twice.
 */
/** The simulator's failing destinations: a wallet at `fail.test`, an address ending `dead` (ERC20) or `DEAD` (TRC20). */
export function simulatedPayoutDecline(destination: PayoutDestination): string | null {
  if (destination.destinationType === 'wallet') {
    const domain = destination.destinationDetails.walletEmail.split('@').pop()?.toLowerCase();
    return domain === 'fail.test' ? 'Payout rejected: the wallet account cannot receive funds' : null;
  }
  const { cryptoNetwork, cryptoAddress } = destination.destinationDetails;
  const failing = cryptoNetwork === 'ERC20' ? 'dead' : 'DEAD';
  return cryptoAddress.endsWith(failing) ? 'Payout rejected: the destination address cannot receive funds' : null;
}

/**
 * The simulator's payout. Deterministic: the same idempotency key always gives the same reference, which
 * is what a real processor's idempotency promises, and it holds across worker restarts with no state.
 */
export async function simulatedPayout(request: PayoutRequest): Promise<PayoutOutcome> {
  const decline = simulatedPayoutDecline(request.destination);
  if (decline) return { status: 'declined', message: decline };
  const hash = createHash('sha256').update(`payout:${request.idempotencyKey}`).digest('hex');
  if (request.destination.destinationType === 'wallet') return { status: 'paid', processorTransactionId: `po_sim_${hash.slice(0, 24)}` };
  // Ethereum writes transaction hashes with 0x; TRON without.
  return { status: 'paid', transactionHash: request.destination.destinationDetails.cryptoNetwork === 'ERC20' ? `0x${hash}` : hash };
}
