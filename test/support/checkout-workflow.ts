/**
 * The checkout workflow in the time-skipping environment with its activities mocked: what
 * test/checkout/payment.workflow.test.ts and payment-in-doubt.workflow.test.ts share.
 */
import { jest } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PaymentActivities } from '../../activities/checkout-payment.js';
import type { Activities } from '../../activities/index.js';
import { checkoutWorkflow } from '../../workflows/checkout.js';
import type { PayRequest } from '../../contracts/checkout.js';
import { testWorker } from './time-skipping.js';

export const DAY = 24 * 3600 * 1000;
export const payRequest: PayRequest = { sessionId: 'sess-1', token: 'tok_sim_success_x', customerName: 'Ada', cardBrand: 'visa', cardLast4: '4242' };

export type CheckoutMocks = { [K in keyof PaymentActivities]: jest.Mock<PaymentActivities[K]> } & { expireSession: jest.Mock<Activities['expireSession']> };

/** Every payment step mocked: a first begin that starts, no charge on record, a pending session when asked. */
export function checkoutMocks(charge: jest.Mock<PaymentActivities['chargeCard']> = jest.fn<PaymentActivities['chargeCard']>()): CheckoutMocks {
  return {
    beginPayment: jest.fn<PaymentActivities['beginPayment']>().mockResolvedValueOnce({ started: true, status: 'processing' }),
    chargeCard: charge,
    // The processor has no record of the charge unless a test says otherwise.
    lookUpCharge: jest.fn<PaymentActivities['lookUpCharge']>().mockResolvedValue({ status: 'not_found' }),
    completePayment: jest.fn<PaymentActivities['completePayment']>().mockResolvedValue({ status: 'completed', reserveId: 'res_1' }),
    failPayment: jest.fn<PaymentActivities['failPayment']>().mockResolvedValue({ status: 'failed' }),
    // Asked only when no pay has reached the workflow in time, or one found the session processing.
    paymentInDoubt: jest.fn<PaymentActivities['paymentInDoubt']>().mockResolvedValue({ status: 'pending', attemptId: null, processingForMs: 0 }),
    settlePayment: jest.fn<PaymentActivities['settlePayment']>(),
    // Asked only for a pay the browser confirms (`browser`); none is opened unless a test says so.
    openBrowserPayment: jest.fn<PaymentActivities['openBrowserPayment']>(),
    settleBrowserPayment: jest.fn<PaymentActivities['settleBrowserPayment']>().mockResolvedValue({ outcome: 'pending', status: 'processing' }),
    expireSession: jest.fn<Activities['expireSession']>().mockResolvedValue('cancelled'),
  };
}

/** A worker with `activities` on a queue of its own, and the session `sess-1`'s checkout workflow on it (expiring in a day). */
export async function withCheckout(
  env: TestWorkflowEnvironment,
  activities: Partial<CheckoutMocks>,
  fn: (handle: Awaited<ReturnType<typeof startCheckout>>) => Promise<void>,
): Promise<void> {
  const taskQueue = `payment-${Math.random()}`;
  const worker = await testWorker(env, taskQueue, activities);
  await worker.runUntil(async () => {
    const handle = await startCheckout(env, taskQueue);
    try {
      await fn(handle);
    } finally {
      // A run left open would wait for a worker that is gone, and hold the test server's clock for the next test.
      await handle.terminate('test over').catch(() => undefined);
    }
  });
}

async function startCheckout(env: TestWorkflowEnvironment, taskQueue: string, expiresInMs = DAY) {
  const expiresAt = new Date((await env.currentTimeMs()) + expiresInMs).toISOString();
  return env.client.workflow.start(checkoutWorkflow, { workflowId: `checkout-${Math.random()}`, taskQueue, args: [{ sessionId: 'sess-1', expiresAt }] });
}
