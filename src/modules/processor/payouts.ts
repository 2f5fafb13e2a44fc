import { createHash } from 'node:crypto';
import type { Destination } from '../withdrawals/destination.js';

/**
 * Paying a withdrawal out through the processor. A permanent refusal is a `PayoutDeclinedError` (the
 * withdrawal fails with its message); any other error is transient and the workflow retries it.
 * The idempotency key (the withdrawal id) makes a retried payout return the first one's result.
 */
export interface PayoutRequest {
  idempotencyKey: string;
  amountInCents: number;
  destination: Destination;
}

/** A wallet payout is identified by the processor's transaction id; a crypto payout by its chain hash. */
export type PayoutResult = { processorTransactionId: string } | { transactionHash: string };

export class PayoutDeclinedError extends Error {
  override name = 'PayoutDeclinedError';
}

export interface Payouts {
  payout(request: PayoutRequest): Promise<PayoutResult>;
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** The simulator's failing destinations: a wallet at `fail.test`, an address ending `dead` (ERC20) or `DEAD` (TRC20). */
export function simulatedPayoutDecline(destination: Destination): string | null {
  if (destination.destinationType === 'wallet') {
    const domain = destination.destinationDetails.walletEmail.split('@').pop()?.toLowerCase();
    return domain === 'fail.test' ? 'Payout rejected: the wallet account cannot receive funds' : null;
  }
  const { cryptoNetwork, cryptoAddress } = destination.destinationDetails;
  const failing = cryptoNetwork === 'ERC20' ? 'dead' : 'DEAD';
  return cryptoAddress.endsWith(failing) ? 'Payout rejected: the destination address cannot receive funds' : null;
}

/**
 * Deterministic: the same idempotency key always gives the same reference, which is what a real
 * processor's idempotency promises, and it holds across worker restarts without any stored state.
 */
export function createSimulatedPayouts(): Payouts {
  return {
    async payout(request) {
      const decline = simulatedPayoutDecline(request.destination);
      if (decline) throw new PayoutDeclinedError(decline);
      const hash = digest(`payout:${request.idempotencyKey}`);
      if (request.destination.destinationType === 'wallet') return { processorTransactionId: `po_${hash.slice(0, 32)}` };
      // Ethereum writes transaction hashes with 0x; TRON without.
      return { transactionHash: request.destination.destinationDetails.cryptoNetwork === 'ERC20' ? `0x${hash}` : hash };
    },
  };
}
