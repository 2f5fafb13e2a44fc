import { PaymentStatus } from '../../contracts/search-attributes.js';
import { IN_DOUBT_CHECK_MS, SETTLE_AFTER_MS } from '../../workflows/checkout-payment.js';
import { payUpdate, sessionClosedSignal, settlePaymentSignal } from '../../contracts/checkout.js';
import { checkoutMocks, DAY, payRequest, withCheckout } from '../support/checkout-workflow.js';
import { useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const inProcessing = (processingForMs: number) => ({ status: 'processing' as const, attemptId: 'attempt-lost', processingForMs });
const paymentStatusOf = async (handle: { describe: () => Promise<{ typedSearchAttributes: { get: (key: typeof PaymentStatus) => unknown } }> }) =>
  (await handle.describe()).typedSearchAttributes.get(PaymentStatus);

/**
 * The checkout workflow owns every payment it may have begun. A pay's update lives only in the server's
 * memory until the task that accepts it completes, while `beginPayment` commits inside that task: a
 * restarted server leaves a session `processing` that no run knows. These are the ways the workflow finds
 * such a payment in doubt and settles it from the processor's record of the charge.
 */
describe('a payment in doubt, settled by its checkout workflow', () => {
  it('no pay reached the workflow, and the session is processing: it is settled once its charge can no longer be on its way', async () => {
    const activities = checkoutMocks();
    activities.paymentInDoubt.mockResolvedValue(inProcessing(5_000));
    let settledAt = 0;
    activities.settlePayment.mockImplementation(async () => {
      settledAt = await env().currentTimeMs();
      return { status: 'completed', chargeId: 'ch_sim_ok_found', reason: 'charge found' };
    });
    await withCheckout(env(), activities, async (handle) => {
      // The run's own start (its timers start at its first task, never before): the test's read of the
      // clock after the start could be late by the real milliseconds between, and the bound below has no slack.
      const startedAt = (await handle.describe()).startTime.getTime();
      expect(await handle.result()).toBe('closed');
      expect(activities.paymentInDoubt).toHaveBeenCalledWith('sess-1');
      expect(activities.settlePayment).toHaveBeenCalledTimes(1);
      expect(activities.settlePayment).toHaveBeenCalledWith('sess-1');
      // The check comes IN_DOUBT_CHECK_MS after the start; the settling waits out the rest of SETTLE_AFTER_MS.
      expect(settledAt - startedAt).toBeGreaterThanOrEqual(IN_DOUBT_CHECK_MS + SETTLE_AFTER_MS - 5_000);
      expect(settledAt - startedAt).toBeLessThan(IN_DOUBT_CHECK_MS + SETTLE_AFTER_MS + 5_000);
      expect(await paymentStatusOf(handle)).toBe('completed');
      expect(activities.expireSession).not.toHaveBeenCalled();
    });
  });

  it('fails it when the processor has no charge, and ends the workflow', async () => {
    const activities = checkoutMocks();
    activities.paymentInDoubt.mockResolvedValue(inProcessing(120_000));
    activities.settlePayment.mockResolvedValue({ status: 'failed', chargeId: null, reason: "no charge under the session's key" });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.result()).toBe('closed');
      expect(activities.settlePayment).toHaveBeenCalledTimes(1);
      expect(await paymentStatusOf(handle)).toBe('failed');
    });
  });

  it('a pay that finds the session processing by an attempt this run never heard of gets its answer, and the payment is settled', async () => {
    const activities = checkoutMocks();
    activities.beginPayment.mockReset().mockResolvedValue({ started: false, status: 'processing' });
    activities.paymentInDoubt.mockResolvedValue(inProcessing(90_000));
    activities.settlePayment.mockResolvedValue({ status: 'failed', chargeId: null, reason: "no charge under the session's key" });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'not_payable', status: 'processing' });
      expect(await handle.result()).toBe('closed');
      expect(activities.chargeCard).not.toHaveBeenCalled();
      expect(activities.settlePayment).toHaveBeenCalledTimes(1);
    });
  });

  // A pay's first step can commit inside a workflow task that is then lost: the server hands its update to a
  // later task, after another pay has found the session processing by an attempt not yet heard.
  describe('the pay that began it reaches the run after all', () => {
    const payOf = (attemptId: string) => ({ ...payRequest, attemptId });
    const doubtedBy = (attemptId: string) => ({ status: 'processing' as const, attemptId, processingForMs: 1_000 });

    it('while the payment in doubt waits out its delay: its attempt resumes and is charged, nothing is settled', async () => {
      const activities = checkoutMocks(checkoutMocks().chargeCard.mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_resumed' }));
      activities.beginPayment.mockReset().mockResolvedValueOnce({ started: false, status: 'processing' }).mockResolvedValue({ started: true, status: 'processing' });
      activities.paymentInDoubt.mockResolvedValue(doubtedBy('attempt-first'));
      await withCheckout(env(), activities, async (handle) => {
        expect(await handle.executeUpdate(payUpdate, { args: [payOf('attempt-second')] })).toEqual({ outcome: 'not_payable', status: 'processing' });
        await env().sleep(5_000);
        expect(activities.paymentInDoubt).toHaveBeenCalledTimes(1);
        // Answered at once, as any pay while another step runs; its call reads the outcome from the database.
        expect(await handle.executeUpdate(payUpdate, { args: [payOf('attempt-first')] })).toEqual({ outcome: 'not_payable', status: 'processing' });
        expect(await handle.result()).toBe('closed');
        expect(activities.beginPayment.mock.calls.map((call) => call[2])).toEqual(['attempt-second', 'attempt-first']);
        expect(activities.chargeCard).toHaveBeenCalledTimes(1);
        expect(activities.completePayment).toHaveBeenCalledWith('sess-1', 'ch_sim_ok_resumed');
        expect(activities.settlePayment).not.toHaveBeenCalled();
        expect(await paymentStatusOf(handle)).toBe('completed');
      });
    });

    it('before the payment was found in doubt: its attempt resumes at once', async () => {
      const activities = checkoutMocks(checkoutMocks().chargeCard.mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_resumed' }));
      let secondBegun!: () => void;
      const begun = new Promise<void>((resolve) => (secondBegun = resolve));
      let letSecondFinish!: () => void;
      const finish = new Promise<void>((resolve) => (letSecondFinish = resolve));
      activities.beginPayment
        .mockReset()
        .mockImplementationOnce(async () => {
          secondBegun();
          await finish;
          return { started: false, status: 'processing' };
        })
        .mockResolvedValue({ started: true, status: 'processing' });
      activities.paymentInDoubt.mockResolvedValue(doubtedBy('attempt-first'));
      await withCheckout(env(), activities, async (handle) => {
        const second = handle.executeUpdate(payUpdate, { args: [payOf('attempt-second')] });
        await begun;
        // Refused behind the pay under way, which it names, so its call can tell whether that one was fenced off.
        expect(await handle.executeUpdate(payUpdate, { args: [payOf('attempt-first')] })).toEqual({ outcome: 'not_payable', status: 'processing', behind: 'attempt-second' });
        letSecondFinish();
        expect(await second).toEqual({ outcome: 'not_payable', status: 'processing' });
        expect(await handle.result()).toBe('closed');
        expect(activities.chargeCard).toHaveBeenCalledTimes(1);
        expect(activities.settlePayment).not.toHaveBeenCalled();
      });
    });

    it('a pay of another attempt does not stop the settling: the attempt in doubt is settled as before', async () => {
      const activities = checkoutMocks();
      activities.beginPayment.mockReset().mockResolvedValue({ started: false, status: 'processing' });
      activities.paymentInDoubt.mockResolvedValue(doubtedBy('attempt-lost'));
      activities.settlePayment.mockResolvedValue({ status: 'failed', chargeId: null, reason: "no charge under the session's key" });
      await withCheckout(env(), activities, async (handle) => {
        await handle.executeUpdate(payUpdate, { args: [payOf('attempt-second')] });
        await handle.executeUpdate(payUpdate, { args: [payOf('attempt-third')] });
        expect(await handle.result()).toBe('closed');
        expect(activities.chargeCard).not.toHaveBeenCalled();
        expect(activities.settlePayment).toHaveBeenCalledTimes(1);
      });
    });
  });

  it('a session still pending when asked stays payable: nothing is settled, and a later pay pays it', async () => {
    const charge = checkoutMocks().chargeCard.mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_later' });
    const activities = checkoutMocks(charge);
    await withCheckout(env(), activities, async (handle) => {
      await env().sleep(IN_DOUBT_CHECK_MS + 1_000);
      expect(activities.paymentInDoubt).toHaveBeenCalledTimes(1);
      expect(activities.settlePayment).not.toHaveBeenCalled();
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'completed', status: 'completed' });
      expect(await handle.result()).toBe('closed');
      expect(activities.settlePayment).not.toHaveBeenCalled();
    });
  });

  it('a pay that arrives in time is paid as always: the workflow never asks about a payment in doubt', async () => {
    const charge = checkoutMocks().chargeCard.mockResolvedValue({ status: 'succeeded', chargeId: 'ch_sim_ok_1' });
    const activities = checkoutMocks(charge);
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [payRequest] })).toEqual({ outcome: 'completed', status: 'completed' });
      expect(await handle.result()).toBe('closed');
      expect(activities.paymentInDoubt).not.toHaveBeenCalled();
    });
  });

  it('the sweep signal settles its own session, and a signal naming another session is ignored', async () => {
    const activities = checkoutMocks();
    activities.paymentInDoubt.mockResolvedValueOnce({ status: 'pending', attemptId: null, processingForMs: 0 }).mockResolvedValue(inProcessing(600_000));
    activities.settlePayment.mockResolvedValue({ status: 'completed', chargeId: 'ch_sim_ok_swept', reason: 'charge found' });
    await withCheckout(env(), activities, async (handle) => {
      await env().sleep(IN_DOUBT_CHECK_MS + 1_000);
      await handle.signal(settlePaymentSignal, 'another-session');
      await env().sleep(60_000);
      expect(activities.paymentInDoubt).toHaveBeenCalledTimes(1);
      await handle.signal(settlePaymentSignal, 'sess-1');
      expect(await handle.result()).toBe('closed');
      expect(activities.paymentInDoubt).toHaveBeenCalledTimes(2);
      expect(activities.settlePayment).toHaveBeenCalledTimes(1);
    });
  });

  it('at expiresAt a session left processing is settled before the workflow closes, never left behind', async () => {
    const activities = checkoutMocks();
    activities.expireSession.mockResolvedValue('processing');
    activities.paymentInDoubt.mockResolvedValueOnce({ status: 'pending', attemptId: null, processingForMs: 0 }).mockResolvedValue(inProcessing(3_600_000));
    activities.settlePayment.mockResolvedValue({ status: 'failed', chargeId: null, reason: "no charge under the session's key" });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.result()).toBe('closed');
      expect(activities.expireSession).toHaveBeenCalledWith('sess-1');
      expect(activities.settlePayment).toHaveBeenCalledTimes(1);
      expect(activities.expireSession.mock.invocationCallOrder[0]).toBeLessThan(activities.settlePayment.mock.invocationCallOrder[0]);
    });
  });
});

describe('messages name their session', () => {
  it('a pay naming another session is refused before it is accepted; nothing is begun', async () => {
    const activities = checkoutMocks();
    await withCheckout(env(), activities, async (handle) => {
      const refused = handle.executeUpdate(payUpdate, { args: [{ ...payRequest, sessionId: 'another-session' }] });
      await expect(refused).rejects.toMatchObject({ cause: { message: expect.stringMatching(/names session another-session, not sess-1/) } });
      expect(activities.beginPayment).not.toHaveBeenCalled();
    });
  });

  it('a closed signal naming another session leaves the workflow open; its own closes it', async () => {
    const activities = checkoutMocks();
    await withCheckout(env(), activities, async (handle) => {
      await handle.signal(sessionClosedSignal, 'another-session', 'cancelled');
      await env().sleep(IN_DOUBT_CHECK_MS + 1_000);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.signal(sessionClosedSignal, 'sess-1', 'cancelled');
      expect(await handle.result()).toBe('closed');
      expect(activities.expireSession).not.toHaveBeenCalled();
    });
  });

  it('expires a session still pending a day later, as before', async () => {
    const activities = checkoutMocks();
    await withCheckout(env(), activities, async (handle) => {
      await env().sleep(DAY + 60_000);
      expect(await handle.result()).toBe('expired');
    });
  });
});
