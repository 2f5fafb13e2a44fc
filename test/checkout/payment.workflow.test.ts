import { jest } from '@jest/globals';
import { WorkflowUpdateStage } from '@temporalio/client';
import type { PaymentActivities } from '../../activities/checkout-payment.js';
import { payUpdate } from '../../contracts/checkout.js';
import { checkoutMocks, payRequest, withCheckout } from '../support/checkout-workflow.js';
import { useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

describe('payment inside the checkout workflow', () => {
  it('retries a transient processor fault, then completes the payment and closes the workflow', async () => {
    const charge = jest
      .fn<PaymentActivities['chargeCard']>()
      .mockRejectedValueOnce(new Error('processor unavailable'))
      .mockRejectedValueOnce(new Error('processor unavailable'))
      .mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_1' });
    const activities = checkoutMocks(charge);
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'completed', status: 'completed' });
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
    const activities = checkoutMocks(charge);
    activities.lookUpCharge.mockReset().mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_late' });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'completed', status: 'completed' });
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
    const activities = checkoutMocks(charge);
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'failed', status: 'failed' });
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
    const activities = checkoutMocks(charge);
    activities.lookUpCharge.mockReset().mockResolvedValue({ status: 'declined', code: 'insufficient_funds', message: 'Your card has insufficient funds.' });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'failed', status: 'failed' });
      expect(activities.failPayment).toHaveBeenCalledWith('sess-1', { code: 'insufficient_funds', message: 'Your card has insufficient funds.' });
    });
  });

  it('keeps asking, with durable backoff, while the lookup itself fails; nothing is failed meanwhile', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>().mockRejectedValue(new Error('processor timed out'));
    const activities = checkoutMocks(charge);
    const lookups = activities.lookUpCharge.mockReset();
    for (let i = 0; i < 12; i++) lookups.mockRejectedValueOnce(new Error('processor unavailable'));
    lookups.mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_found' });
    await withCheckout(env(), activities, async (handle) => {
      const startedAt = await env().currentTimeMs();
      const update = await handle.startUpdate(payUpdate, { args: [payRequest], waitForStage: WorkflowUpdateStage.ACCEPTED });
      // Waiting on the workflow's result (not the update's) lets the test server skip through the backoff.
      expect(await handle.result()).toBe('closed');
      expect(await update.result()).toEqual({ outcome: 'completed', status: 'completed' });
      expect(lookups).toHaveBeenCalledTimes(13);
      // 1 s doubling, capped at 5 minutes: twelve failed lookups wait 1,411 s in all.
      expect((await env().currentTimeMs()) - startedAt).toBeGreaterThan(20 * 60 * 1000);
      expect(activities.failPayment).not.toHaveBeenCalled();
      expect(activities.completePayment).toHaveBeenCalledWith('sess-1', 'ch_sim_ok_found');
    });
  });

  it('records a decline without retrying it', async () => {
    const charge = jest
      .fn<PaymentActivities['chargeCard']>()
      .mockResolvedValue({ status: 'declined', code: 'card_declined', message: 'Your card was declined.' });
    const activities = checkoutMocks(charge);
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'failed', status: 'failed' });
      expect(charge).toHaveBeenCalledTimes(1);
      expect(activities.failPayment).toHaveBeenCalledWith('sess-1', { code: 'card_declined', message: 'Your card was declined.' });
    });
  });

  it('asks again under the same attempt id when beginPayment is retried, and goes on to charge', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>().mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_3' });
    const activities = checkoutMocks(charge);
    // The first run's answer is lost (it moved the session, then Temporal never heard back).
    activities.beginPayment.mockReset().mockRejectedValueOnce(new Error('answer lost')).mockResolvedValue({ started: true, status: 'processing' });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'completed', status: 'completed' });
      const [first, retry] = activities.beginPayment.mock.calls;
      expect(retry[2]).toBe(first[2]);
      expect(charge).toHaveBeenCalledTimes(1);
    });
  });

  it('charges nothing when the database says the session is no longer pending', async () => {
    const charge = jest.fn<PaymentActivities['chargeCard']>();
    const activities = checkoutMocks(charge);
    activities.beginPayment.mockReset().mockResolvedValue({ started: false, status: 'cancelled' });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'not_payable', status: 'cancelled' });
      expect(charge).not.toHaveBeenCalled();
    });
  });

  it('answers a second pay while the first is charging without charging again', async () => {
    let finishCharge!: () => void;
    const charge = jest.fn<PaymentActivities['chargeCard']>(
      () => new Promise((resolve) => (finishCharge = () => resolve({ status: 'succeeded', chargeId: 'ch_sim_ok_2' }))),
    );
    const activities = checkoutMocks(charge);
    await withCheckout(env(), activities, async (handle) => {
      const first = handle.executeUpdate(payUpdate, { args: [payRequest] });
      while (!charge.mock.calls.length) await new Promise((r) => setTimeout(r, 20));
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'not_payable', status: 'processing' });
      finishCharge();
      expect(await first).toEqual({ outcome: 'completed', status: 'completed' });
      expect(charge).toHaveBeenCalledTimes(1);
      expect(activities.beginPayment).toHaveBeenCalledTimes(1);
    });
  });
});
