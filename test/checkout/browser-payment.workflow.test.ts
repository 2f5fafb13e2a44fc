/**
 * A payment the customer confirms in the browser (Stripe.js), in the checkout workflow on the time-skipping
 * server with its activities mocked: the workflow hands the charge's secret to the pay, waits for the
 * acquirer's news (`paymentIntentChanged`), and owns the session's end, at its expiry too.
 */
import { payUpdate, paymentIntentChangedSignal, type PayRequest } from '../../contracts/checkout.js';
import { checkoutMocks, DAY, payRequest, withCheckout } from '../support/checkout-workflow.js';
import { useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();
const browserPay: PayRequest = { ...payRequest, token: '', cardBrand: null, cardLast4: null, browser: { returnUrl: 'https://pay.example/checkout/sess-1' } };
const opened = { status: 'opened' as const, clientSecret: 'pi_1_secret_x', returnUrl: 'https://pay.example/checkout/sess-1' };

describe('a payment confirmed in the browser, in the checkout workflow', () => {
  it('answers the pay with the client secret, charges nothing itself, and completes when the acquirer says it succeeded', async () => {
    const activities = checkoutMocks();
    activities.openBrowserPayment.mockResolvedValue(opened);
    activities.settleBrowserPayment.mockReset().mockResolvedValueOnce({ outcome: 'pending', status: 'processing' }).mockResolvedValue({ outcome: 'completed', status: 'completed' });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [browserPay] })).toEqual({ outcome: 'confirm', status: 'processing', clientSecret: 'pi_1_secret_x', returnUrl: browserPay.browser!.returnUrl });
      expect(activities.openBrowserPayment).toHaveBeenCalledWith('sess-1', browserPay.browser!.returnUrl);
      expect(activities.chargeCard).not.toHaveBeenCalled();
      // Another pay while the customer is at Stripe is refused; news still open (3-D Secure) changes nothing.
      expect(await handle.executeUpdate(payUpdate, { args: [{ ...browserPay, attemptId: 'another' }] })).toMatchObject({ outcome: 'not_payable', status: 'processing' });
      await handle.signal(paymentIntentChangedSignal, 'sess-1');
      await handle.signal(paymentIntentChangedSignal, 'sess-1');
      expect(await handle.result()).toBe('closed');
      expect(activities.settleBrowserPayment).toHaveBeenCalledTimes(2);
      expect(activities.settlePayment).not.toHaveBeenCalled();
      expect(activities.expireSession).not.toHaveBeenCalled();
    });
  });

  it('settles a charge the customer never finished at the session\'s expiry, as a payment in doubt', async () => {
    const activities = checkoutMocks();
    activities.openBrowserPayment.mockResolvedValue(opened);
    activities.expireSession.mockReset().mockResolvedValue('processing');
    activities.settlePayment.mockResolvedValue({ status: 'failed', chargeId: null, reason: 'declined: card_declined' });
    await withCheckout(env(), activities, async (handle) => {
      expect(await handle.executeUpdate(payUpdate, { args: [browserPay] })).toMatchObject({ outcome: 'confirm' });
      await env().sleep(DAY);
      expect(await handle.result()).toBe('closed');
      expect(activities.expireSession).toHaveBeenCalledWith('sess-1');
      expect(activities.settlePayment).toHaveBeenCalledWith('sess-1');
      // Not the in-doubt path, which would resume the customer's own attempt and open the charge again.
      expect(activities.paymentInDoubt).not.toHaveBeenCalled();
      expect(activities.openBrowserPayment).toHaveBeenCalledTimes(1);
    });
  });
});
