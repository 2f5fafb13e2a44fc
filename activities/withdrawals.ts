import type { MikroORM } from '@mikro-orm/postgresql';
import type { PayoutReference, PaymentProcessor } from '../src/modules/processor/index.js';
import {
  parseDestination,
  Withdrawal,
  completeWithdrawal,
  failWithdrawal,
  startWithdrawalProcessing,
  withdrawalView,
} from '../src/modules/withdrawals/index.js';
import { declined, withHeartbeats } from './processor-call.js';
import type { WithdrawalRecord } from '../contracts/withdrawals.js';
import { PAYOUT_DECLINED } from '../contracts/failure-types.js';
import { failpoint } from '../src/ops/failpoints.js';
import { metrics } from '../src/ops/metrics.js';

export interface WithdrawalActivityDeps {
  orm: MikroORM;
  /** The processor, chosen where the process is wired (src/main/payment-processor.ts). */
  processor: PaymentProcessor;
}

export function createWithdrawalActivities(deps: WithdrawalActivityDeps) {
  const { processor } = deps;
  const em = () => deps.orm.em.fork();
  return {
    /** `pending` → `processing` unless a cancel won; returns the record either way. */
    async startWithdrawalProcessing(withdrawalId: string): Promise<WithdrawalRecord> {
      const withdrawal = await startWithdrawalProcessing(em(), withdrawalId);
      await failpoint('withdrawal.after-processing', withdrawal.businessId);
      return withdrawalView(withdrawal);
    },

    /**
     * The payout on the processor, keyed by the withdrawal id so a retry never pays twice. A refusal
     * becomes a non-retryable failure the workflow turns into `failed`; a transient fault throws and is
     * retried.
     */
    async payWithdrawal(withdrawalId: string): Promise<PayoutReference> {
      const withdrawal = await em().findOneOrFail(Withdrawal, { id: withdrawalId });
      const outcome = await withHeartbeats(
        processor.payout({
          idempotencyKey: withdrawal.id,
          amountInCents: withdrawal.amountInCents,
          destination: parseDestination(withdrawal.destinationType, withdrawal.destinationDetails),
          livemode: withdrawal.livemode,
        }),
      );
      await failpoint('withdrawal.after-payout', withdrawal.businessId);
      if (outcome.status === 'declined') throw declined(PAYOUT_DECLINED, outcome.message);
      const { status: _paid, ...reference } = outcome;
      return reference;
    },

    async completeWithdrawal(withdrawalId: string, reference: PayoutReference): Promise<WithdrawalRecord> {
      const withdrawal = await em().transactional((tx) => completeWithdrawal(tx, withdrawalId, reference));
      metrics.withdrawal('completed');
      return withdrawalView(withdrawal);
    },

    async failWithdrawal(withdrawalId: string, failureReason: string): Promise<WithdrawalRecord> {
      const withdrawal = await em().transactional((tx) => failWithdrawal(tx, withdrawalId, failureReason));
      metrics.withdrawal('failed');
      return withdrawalView(withdrawal);
    },
  };
}
export type WithdrawalActivities = ReturnType<typeof createWithdrawalActivities>;
