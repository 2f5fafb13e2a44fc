import { jest } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../../activities/index.js';
import { REFUND_DECLINED } from '../../contracts/failure-types.js';
import { refundWorkflow } from '../../workflows/refunds.js';
import { refundStatusQuery, type RefundRecord } from '../../contracts/refunds.js';
import { PaymentStatus } from '../../contracts/search-attributes.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const record = (status: RefundRecord['status'], extra: Partial<RefundRecord> = {}): RefundRecord => ({
  id: 'ref_1',
  checkoutSessionId: '01890000-0000-7000-8000-000000000001',
  amountInCents: 4_658,
  reason: null,
  status,
  livemode: false,
  createdAt: '2026-11-21T00:00:00.000Z',
  requestedAt: '2026-11-21T00:00:00.000Z',
  ...extra,
});

type Mocks = Pick<Activities, 'startRefundProcessing' | 'refundOnProcessor' | 'completeRefund' | 'failRefund'>;

function mocks() {
  return {
    startRefundProcessing: jest.fn<Mocks['startRefundProcessing']>().mockResolvedValue(record('processing')),
    refundOnProcessor: jest.fn<Mocks['refundOnProcessor']>().mockResolvedValue('re_1'),
    completeRefund: jest.fn<Mocks['completeRefund']>().mockResolvedValue(record('completed', { completedAt: '2026-11-21T00:00:01.000Z' })),
    failRefund: jest.fn<Mocks['failRefund']>().mockImplementation(async (_id, failureReason) => record('failed', { failureReason })),
  };
}

async function run(activities: Partial<Activities>) {
  const taskQueue = `refund-${Math.random()}`;
  const worker = await testWorker(env(), taskQueue, activities);
  return worker.runUntil(async () => {
    const handle = await env().client.workflow.start(refundWorkflow, {
      workflowId: `refund-test-${Math.random()}`,
      taskQueue,
      args: [{ refundId: 'ref_1', record: record('pending') }],
      typedSearchAttributes: [{ key: PaymentStatus, value: 'pending' }],
    });
    const outcome = await handle.result();
    return { outcome, record: await handle.query(refundStatusQuery), status: (await handle.describe()).typedSearchAttributes.get(PaymentStatus) };
  });
}

describe('the refund workflow', () => {
  it('moves a refund to processing, refunds it on the processor and completes it', async () => {
    const m = mocks();
    const result = await run(m);
    expect(result.outcome).toBe('completed');
    expect(m.refundOnProcessor).toHaveBeenCalledWith('ref_1');
    expect(m.completeRefund).toHaveBeenCalledWith('ref_1', 're_1');
    expect(m.failRefund).not.toHaveBeenCalled();
    expect(result.record.status).toBe('completed');
    expect(result.status).toBe('completed');
  });

  it('retries transient processor faults, past the activity\'s own attempts, then completes', async () => {
    const m = mocks();
    let calls = 0;
    m.refundOnProcessor.mockImplementation(async () => {
      calls++;
      if (calls <= 5) throw new Error('processor unavailable');
      return 're_1';
    });
    const result = await run(m);
    expect(result.outcome).toBe('completed');
    expect(calls).toBe(6); // three quick attempts, a 30 s backoff, then three more
    expect(m.completeRefund).toHaveBeenCalledTimes(1);
    expect(m.failRefund).not.toHaveBeenCalled();
  });

  it('ends failed on a permanent refusal, returning the funds (failRefund) with the reason', async () => {
    const m = mocks();
    m.refundOnProcessor.mockRejectedValue(
      ApplicationFailure.create({ type: REFUND_DECLINED, message: 'Refund declined by the card issuer', nonRetryable: true }),
    );
    const result = await run(m);
    expect(result.outcome).toBe('failed');
    expect(m.refundOnProcessor).toHaveBeenCalledTimes(1);
    expect(m.failRefund).toHaveBeenCalledWith('ref_1', 'Refund declined by the card issuer');
    expect(m.completeRefund).not.toHaveBeenCalled();
    expect(result.record).toMatchObject({ status: 'failed', failureReason: 'Refund declined by the card issuer' });
    expect(result.status).toBe('failed');
  });

  it('does nothing more when the refund already left pending (a second start after a crash)', async () => {
    const m = mocks();
    m.startRefundProcessing.mockResolvedValue(record('completed', { completedAt: '2026-11-21T00:00:01.000Z' }));
    const result = await run(m);
    expect(result.outcome).toBe('completed');
    expect(m.refundOnProcessor).not.toHaveBeenCalled();
  });
});
