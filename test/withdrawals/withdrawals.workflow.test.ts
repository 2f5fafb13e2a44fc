import { jest } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../../activities/index.js';
import { PAYOUT_DECLINED } from '../../contracts/failure-types.js';
import { retrySignal } from '../../workflows/in-flight.js';
import { PaymentStatus } from '../../contracts/search-attributes.js';
import { withdrawalWorkflow } from '../../workflows/withdrawals.js';
import { withdrawalCancelledSignal, withdrawalStatusQuery, type WithdrawalRecord } from '../../contracts/withdrawals.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const MINUTE = 60_000;
const DELAY = 10 * MINUTE;

const record = (status: WithdrawalRecord['status'], extra: Partial<WithdrawalRecord> = {}): WithdrawalRecord => ({
  id: 'wd_1',
  amountInCents: 2_500,
  status,
  destinationType: 'wallet',
  destinationDetails: '{"walletEmail":"a@b.example"}',
  livemode: false,
  requestedAt: '2026-11-21T00:00:00.000Z',
  updatedAt: '2026-11-21T00:00:00.000Z',
  completedAt: null,
  ...extra,
});

type Mocks = Pick<Activities, 'startWithdrawalProcessing' | 'payWithdrawal' | 'completeWithdrawal' | 'failWithdrawal'>;

function happyMocks() {
  return {
    startWithdrawalProcessing: jest.fn<Mocks['startWithdrawalProcessing']>().mockResolvedValue(record('processing')),
    payWithdrawal: jest.fn<Mocks['payWithdrawal']>().mockResolvedValue({ processorTransactionId: 'po_1' }),
    completeWithdrawal: jest
      .fn<Mocks['completeWithdrawal']>()
      .mockResolvedValue(record('completed', { completedAt: '2026-11-21T00:10:00.000Z', processorTransactionId: 'po_1' })),
    failWithdrawal: jest.fn<Mocks['failWithdrawal']>().mockImplementation(async (_id, failureReason) => record('failed', { failureReason })),
  };
}

async function run(activities: Partial<Activities>, fn: (start: () => ReturnType<typeof startWorkflow>) => Promise<void>) {
  const taskQueue = `withdrawal-${Math.random()}`;
  const worker = await testWorker(env(), taskQueue, activities);
  await worker.runUntil(fn(() => startWorkflow(taskQueue)));
}

function startWorkflow(taskQueue: string) {
  return env().client.workflow.start(withdrawalWorkflow, {
    workflowId: `withdrawal-test-${Math.random()}`,
    taskQueue,
    args: [{ withdrawalId: 'wd_1', processingDelayMs: DELAY, record: record('pending') }],
    typedSearchAttributes: [{ key: PaymentStatus, value: 'pending' }],
  });
}

describe('the withdrawal workflow', () => {
  it('honours the processing delay: still pending just before it ends, then pays out and completes', async () => {
    const mocks = happyMocks();
    await run(mocks, async (start) => {
      const handle = await start();
      await env().sleep(DELAY - 1_000);
      expect(mocks.startWithdrawalProcessing).not.toHaveBeenCalled();
      expect((await handle.query(withdrawalStatusQuery)).status).toBe('pending');
      await env().sleep(2_000);
      expect(await handle.result()).toBe('completed');
      expect(mocks.payWithdrawal).toHaveBeenCalledWith('wd_1');
      expect(mocks.completeWithdrawal).toHaveBeenCalledWith('wd_1', { processorTransactionId: 'po_1' });
      expect(mocks.failWithdrawal).not.toHaveBeenCalled();
      expect((await handle.query(withdrawalStatusQuery)).status).toBe('completed');
      expect((await handle.describe()).typedSearchAttributes.get(PaymentStatus)).toBe('completed');
    });
  });

  it('ends cancelled when the merchant cancels inside the delay, never touching the processor', async () => {
    const mocks = happyMocks();
    await run(mocks, async (start) => {
      const handle = await start();
      await env().sleep(3 * MINUTE);
      await handle.signal(withdrawalCancelledSignal, record('cancelled', { cancelledAt: '2026-11-21T00:03:00.000Z' }));
      expect(await handle.result()).toBe('cancelled');
      expect(mocks.startWithdrawalProcessing).not.toHaveBeenCalled();
      expect(mocks.payWithdrawal).not.toHaveBeenCalled();
      expect((await handle.query(withdrawalStatusQuery)).status).toBe('cancelled');
      expect((await handle.describe()).typedSearchAttributes.get(PaymentStatus)).toBe('cancelled');
    });
  });

  it('ignores a cancelled signal naming another withdrawal: this one, still pending in the database, is paid out after its delay', async () => {
    const mocks = happyMocks();
    await run(mocks, async (start) => {
      const handle = await start();
      await env().sleep(3 * MINUTE);
      // Copied from another withdrawal's history: that one was cancelled, this one was not.
      await handle.signal(withdrawalCancelledSignal, record('cancelled', { id: 'wd_other', cancelledAt: '2026-11-21T00:03:00.000Z' }));
      await env().sleep(MINUTE);
      expect((await handle.query(withdrawalStatusQuery)).status).toBe('pending');
      expect(await handle.result()).toBe('completed');
      expect(mocks.startWithdrawalProcessing).toHaveBeenCalledWith('wd_1');
      expect(mocks.payWithdrawal).toHaveBeenCalledWith('wd_1');
    });
  });

  it('ends cancelled when a cancel committed just before the move to processing (its signal not yet arrived)', async () => {
    const mocks = happyMocks();
    mocks.startWithdrawalProcessing.mockResolvedValue(record('cancelled'));
    await run(mocks, async (start) => {
      const handle = await start();
      expect(await handle.result()).toBe('cancelled');
      expect(mocks.startWithdrawalProcessing).toHaveBeenCalledTimes(1);
      expect(mocks.payWithdrawal).not.toHaveBeenCalled();
      expect(mocks.completeWithdrawal).not.toHaveBeenCalled();
    });
  });

  it('fails the withdrawal when the processor refuses the payout, with its reason', async () => {
    const mocks = happyMocks();
    mocks.payWithdrawal.mockRejectedValue(
      ApplicationFailure.create({ type: PAYOUT_DECLINED, message: 'Payout rejected: the wallet account cannot receive funds', nonRetryable: true }),
    );
    await run(mocks, async (start) => {
      const handle = await start();
      expect(await handle.result()).toBe('failed');
      expect(mocks.payWithdrawal).toHaveBeenCalledTimes(1);
      expect(mocks.failWithdrawal).toHaveBeenCalledWith('wd_1', 'Payout rejected: the wallet account cannot receive funds');
      expect(mocks.completeWithdrawal).not.toHaveBeenCalled();
      expect((await handle.query(withdrawalStatusQuery)).failureReason).toBe('Payout rejected: the wallet account cannot receive funds');
    });
  });

  it('retries transient payout faults, and an operator\'s retry signal ends the backoff at once', async () => {
    const mocks = happyMocks();
    let calls = 0;
    mocks.payWithdrawal.mockImplementation(async () => {
      calls++;
      if (calls <= 3) throw new Error('processor timeout');
      return { processorTransactionId: 'po_1' };
    });
    await run(mocks, async (start) => {
      const handle = await start();
      await env().sleep(DELAY + 1_000);
      // The activity's own three quick attempts fail; the workflow then waits 30 s before the next round.
      for (let i = 0; i < 100 && calls < 3; i++) await new Promise((r) => setTimeout(r, 100));
      expect(calls).toBe(3);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(calls).toBe(3); // waiting out its backoff
      // What the operator reads in the UI: the step it waits in, and the last error.
      const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      expect(metadata.currentDetails).toContain('Waiting 30 s before trying the processor again (signal "retry" to try now)');
      expect(metadata.currentDetails).toContain('Last error: processor timeout');
      await handle.signal(retrySignal);
      // Time is not skipped here, so only the signal can bring the fourth attempt within seconds.
      for (let i = 0; i < 50 && calls < 4; i++) await new Promise((r) => setTimeout(r, 100));
      expect(calls).toBe(4);
      expect(await handle.result()).toBe('completed');
      expect(mocks.failWithdrawal).not.toHaveBeenCalled();
    });
  });
});
