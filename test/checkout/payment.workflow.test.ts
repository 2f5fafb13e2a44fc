import { jest } from '@jest/globals';
import { WorkflowUpdateStage } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { PaymentActivities } from '../../activities/checkout-payment.js';
import type { Activities } from '../../activities/index.js';
import { checkoutWorkflow, payUpdate, type PayRequest } from '../../workflows/checkout.js';
import { createTimeSkippingEnv, testDataConverter, workflowBundle } from '../support/time-skipping.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
});
afterAll(async () => env?.teardown());

const DAY = 24 * 3600 * 1000;
const request: PayRequest = { token: 'tok_sim_success_x', customerName: 'Ada', cardBrand: 'visa', cardLast4: '4242' };

type Mocks = { [K in keyof PaymentActivities]: jest.Mock<PaymentActivities[K]> } & { expireSession: jest.Mock<Activities['expireSession']> };

function mocks(charge: jest.Mock<PaymentActivities['chargeCard']>): Mocks {
  return {
    beginPayment: jest.fn<PaymentActivities['beginPayment']>().mockResolvedValueOnce({ started: true, status: 'processing' }),
    chargeCard: charge,
    // The processor has no record of the charge unless a test says otherwise.
    lookUpCharge: jest.fn<PaymentActivities['lookUpCharge']>().mockResolvedValue({ status: 'not_found' }),
    completePayment: jest.fn<PaymentActivities['completePayment']>().mockResolvedValue({ status: 'completed', reserveId: 'res_1' }),
    failPayment: jest.fn<PaymentActivities['failPayment']>().mockResolvedValue({ status: 'failed' }),
    expireSession: jest.fn<Activities['expireSession']>().mockResolvedValue('cancelled'),
  };
}

async function withCheckout(activities: Mocks, fn: (handle: Awaited<ReturnType<typeof start>>) => Promise<void>) {
  const taskQueue = `payment-${Math.random()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), dataConverter: testDataConverter, activities });
  await worker.runUntil(async () => fn(await start(taskQueue)));
}

async function start(taskQueue: string) {
  const expiresAt = new Date((await env.currentTimeMs()) + DAY).toISOString();
  return env.client.workflow.start(checkoutWorkflow, {
    workflowId: `checkout-${Math.random()}`,
    taskQueue,
    args: [{ sessionId: 'sess-1', expiresAt }],
  });
}

describe('payment inside the checkout workflow', () => {
  it('retries a transient processor fault, then completes the payment and closes the workflow', async () => {
    const charge = jest
      .fn<PaymentActivities['chargeCard']>()
      .mockRejectedValueOnce(new Error('processor unavailable'))
      .mockRejectedValueOnce(new Error('processor unavailable'))
      .mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_1' });
    const activities = mocks(charge);
    await withCheckout(activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [request] })).toEqual({ outcome: 'completed', status: 'completed' });
      expect(charge).toHaveBeenCalledTimes(3);
      expect(charge).toHaveBeenCalledWith('sess-1', 'tok_sim_success_x');
      expect(activities.beginPayment).toHaveBeenCalledWith('sess-1', { customerName: 'Ada', cardBrand: 'visa', cardLast4: '4242' }, expect.stringMatching(/^[0-9a-f-]{36}$/));
      expect(activities.completePayment).toHaveBeenCalledWith('sess-1', 'ch_sim_ok_1');
      expect(activities.failPayment).not.toHaveBeenCalled();
      expect(await handle.result()).toBe('closed');
      expect(activities.expireSession).not.toHaveBeenCalled();
    });
  });

  it('looks the charge up when the fault persists, and completes the payment the processor did make', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>().mockRejectedValue(new Error('processor timed out'));
    const activities = mocks(charge);
    activities.lookUpCharge.mockReset().mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_late' });
    await withCheckout(activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [request] })).toEqual({ outcome: 'completed', status: 'completed' });
      expect(charge).toHaveBeenCalledTimes(4);
      expect(activities.lookUpCharge).toHaveBeenCalledTimes(1);
      expect(activities.lookUpCharge).toHaveBeenCalledWith('sess-1');
      expect(activities.completePayment).toHaveBeenCalledWith('sess-1', 'ch_sim_ok_late');
      expect(activities.failPayment).not.toHaveBeenCalled();
      expect(await handle.result()).toBe('closed');
    });
  });

  it('fails the payment as processing_error only once the lookup says no charge was made', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>().mockRejectedValue(new Error('processor unavailable'));
    const activities = mocks(charge);
    await withCheckout(activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [request] })).toEqual({ outcome: 'failed', status: 'failed' });
      expect(charge).toHaveBeenCalledTimes(4);
      expect(activities.lookUpCharge).toHaveBeenCalledWith('sess-1');
      expect(activities.failPayment).toHaveBeenCalledWith('sess-1', {
        code: 'processing_error',
        message: 'An error occurred while processing your card. Try again in a little bit.',
      });
      expect(activities.lookUpCharge.mock.invocationCallOrder[0]).toBeLessThan(activities.failPayment.mock.invocationCallOrder[0]);
      expect(activities.completePayment).not.toHaveBeenCalled();
    });
  });

  it('fails with the decline the lookup finds', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>().mockRejectedValue(new Error('processor timed out'));
    const activities = mocks(charge);
    activities.lookUpCharge.mockReset().mockResolvedValue({ status: 'declined', code: 'insufficient_funds', message: 'Your card has insufficient funds.' });
    await withCheckout(activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [request] })).toEqual({ outcome: 'failed', status: 'failed' });
      expect(activities.failPayment).toHaveBeenCalledWith('sess-1', { code: 'insufficient_funds', message: 'Your card has insufficient funds.' });
    });
  });

  it('keeps asking, with durable backoff, while the lookup itself fails; nothing is failed meanwhile', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>().mockRejectedValue(new Error('processor timed out'));
    const activities = mocks(charge);
    const lookups = activities.lookUpCharge.mockReset();
    for (let i = 0; i < 12; i++) lookups.mockRejectedValueOnce(new Error('processor unavailable'));
    lookups.mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_found' });
    await withCheckout(activities, async (handle) => {
      const startedAt = await env.currentTimeMs();
      const update = await handle.startUpdate(payUpdate, { args: [request], waitForStage: WorkflowUpdateStage.ACCEPTED });
      // Waiting on the workflow's result (not the update's) lets the test server skip through the backoff.
      expect(await handle.result()).toBe('closed');
      expect(await update.result()).toEqual({ outcome: 'completed', status: 'completed' });
      expect(lookups).toHaveBeenCalledTimes(13);
      // 1 s doubling, capped at 5 minutes: twelve failed lookups wait 1,411 s in all.
      expect((await env.currentTimeMs()) - startedAt).toBeGreaterThan(20 * 60 * 1000);
      expect(activities.failPayment).not.toHaveBeenCalled();
      expect(activities.completePayment).toHaveBeenCalledWith('sess-1', 'ch_sim_ok_found');
    });
  });

  it('records a decline without retrying it', async () => {
    const charge = jest
      .fn<PaymentActivities['chargeCard']>()
      .mockResolvedValue({ status: 'declined', code: 'card_declined', message: 'Your card was declined.' });
    const activities = mocks(charge);
    await withCheckout(activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [request] })).toEqual({ outcome: 'failed', status: 'failed' });
      expect(charge).toHaveBeenCalledTimes(1);
      expect(activities.failPayment).toHaveBeenCalledWith('sess-1', { code: 'card_declined', message: 'Your card was declined.' });
    });
  });

  it('asks again under the same attempt id when beginPayment is retried, and goes on to charge', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>().mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_3' });
    const activities = mocks(charge);
    // The first run's answer is lost (it moved the session, then Temporal never heard back).
    activities.beginPayment.mockReset().mockRejectedValueOnce(new Error('answer lost')).mockResolvedValue({ started: true, status: 'processing' });
    await withCheckout(activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [request] })).toEqual({ outcome: 'completed', status: 'completed' });
      const [first, retry] = activities.beginPayment.mock.calls;
      expect(retry[2]).toBe(first[2]);
      expect(charge).toHaveBeenCalledTimes(1);
    });
  });

  it('charges nothing when the database says the session is no longer pending', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>();
    const activities = mocks(charge);
    activities.beginPayment.mockReset().mockResolvedValue({ started: false, status: 'cancelled' });
    await withCheckout(activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [request] })).toEqual({ outcome: 'not_payable', status: 'cancelled' });
      expect(charge).not.toHaveBeenCalled();
    });
  });

  it('answers a second pay while the first is charging without charging again', async () => {
    let finishCharge!: () => void;
    const charge = jest.fn<PaymentActivities['chargeCard']>(
      () => new Promise((resolve) => (finishCharge = () => resolve({ status: 'succeeded', chargeId: 'ch_sim_ok_2' }))),
    );
    const activities = mocks(charge);
    await withCheckout(activities, async (handle) => {
      const first = handle.executeUpdate(payUpdate, { args: [request] });
      while (!charge.mock.calls.length) await new Promise((r) => setTimeout(r, 20));
      expect(await handle.executeUpdate(payUpdate, { args: [request] })).toEqual({ outcome: 'not_payable', status: 'processing' });
      finishCharge();
      expect(await first).toEqual({ outcome: 'completed', status: 'completed' });
      expect(charge).toHaveBeenCalledTimes(1);
      expect(activities.beginPayment).toHaveBeenCalledTimes(1);
    });
  });
});
