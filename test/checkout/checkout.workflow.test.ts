import { jest } from '@jest/globals';
import { checkoutWorkflow } from '../../workflows/checkout.js';
import { sessionClosedSignal } from '../../contracts/checkout.js';
import type { Activities } from '../../activities/index.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const DAY = 24 * 3600 * 1000;

async function runWith(activities: Partial<Activities>, fn: (taskQueue: string) => Promise<void>) {
  const taskQueue = `checkout-${Math.random()}`;
  const worker = await testWorker(env(), taskQueue, activities);
  await worker.runUntil(fn(taskQueue));
}

describe('checkout session expiry', () => {
  it('cancels a session still pending 24 h after creation, and not a moment before', async () => {
    const expireSession = jest.fn<Activities["expireSession"]>().mockResolvedValue('cancelled');
    // No pay came: the workflow asks once whether one was begun and lost, and finds the session pending.
    const paymentInDoubt = jest.fn<Activities['paymentInDoubt']>().mockResolvedValue({ status: 'pending', attemptId: null, processingForMs: 0 });
    await runWith({ expireSession, paymentInDoubt }, async (taskQueue) => {
      const expiresAt = new Date((await env().currentTimeMs()) + DAY).toISOString();
      const handle = await env().client.workflow.start(checkoutWorkflow, {
        workflowId: `checkout-expiry-${Math.random()}`,
        taskQueue,
        args: [{ sessionId: 's-1', expiresAt }],
      });
      await env().sleep(DAY - 60_000);
      expect(expireSession).not.toHaveBeenCalled();
      await env().sleep(120_000);
      expect(await handle.result()).toBe('expired');
      expect(expireSession).toHaveBeenCalledWith('s-1');
    });
  });

  it('ends without expiring once the session is closed by a payment or a cancel', async () => {
    const expireSession = jest.fn<Activities["expireSession"]>();
    await runWith({ expireSession }, async (taskQueue) => {
      const expiresAt = new Date((await env().currentTimeMs()) + DAY).toISOString();
      const handle = await env().client.workflow.start(checkoutWorkflow, {
        workflowId: `checkout-closed-${Math.random()}`,
        taskQueue,
        args: [{ sessionId: 's-2', expiresAt }],
      });
      await handle.signal(sessionClosedSignal, 's-2', 'completed');
      expect(await handle.result()).toBe('closed');
      expect(expireSession).not.toHaveBeenCalled();
    });
  });
});
