import { jest } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities/index.js';
import { WEBHOOK_RETRY_DELAYS_MS, webhookDeliveryWorkflow } from '../../workflows/webhooks.js';
import { createTimeSkippingEnv, testDataConverter, workflowBundle } from '../support/time-skipping.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
});
afterAll(async () => env?.teardown());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
type Attempt = Activities['attemptWebhookDelivery'];
type Fail = Activities['failWebhookDelivery'];

/** Mocked activities that note the (skipped) time of each attempt. */
function activities(outcomes: Awaited<ReturnType<Attempt>>[]) {
  const times: number[] = [];
  const attemptWebhookDelivery = jest.fn<Attempt>(async () => {
    times.push(await env.currentTimeMs());
    return outcomes[times.length - 1] ?? 'failed';
  });
  const failWebhookDelivery = jest.fn<Fail>().mockResolvedValue(undefined);
  return { times, attemptWebhookDelivery, failWebhookDelivery };
}

async function run(acts: ReturnType<typeof activities>, fn: (taskQueue: string) => Promise<void>) {
  const taskQueue = `webhooks-${Math.random()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    dataConverter: testDataConverter,
    activities: { attemptWebhookDelivery: acts.attemptWebhookDelivery, failWebhookDelivery: acts.failWebhookDelivery },
  });
  await worker.runUntil(fn(taskQueue));
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);

describe('webhook delivery schedule', () => {
  it('is the spec schedule: immediately, 1 min, 5 min, 30 min, 2 h, 8 h, 24 h', () => {
    expect(WEBHOOK_RETRY_DELAYS_MS).toEqual([0, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 24 * HOUR]);
  });

  it('makes 7 attempts spaced as the spec says, then marks the delivery failed', async () => {
    const acts = activities([]);
    await run(acts, async (taskQueue) => {
      const started = await env.currentTimeMs();
      const result = await env.client.workflow.execute(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_all-fail-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_1' }],
      });
      expect(result).toBe('failed');
      expect(acts.attemptWebhookDelivery).toHaveBeenCalledTimes(7);
      // "Immediately": the first attempt waits for no timer (a few real seconds of task latency at most).
      expect(acts.times[0] - started).toBeLessThan(10_000);
      // Each gap is the spec's delay, plus only the real time the mocked attempt and task hand-offs take.
      gaps(acts.times).forEach((gap, i) => {
        expect(gap).toBeGreaterThanOrEqual(WEBHOOK_RETRY_DELAYS_MS[i + 1]);
        expect(gap).toBeLessThan(WEBHOOK_RETRY_DELAYS_MS[i + 1] + 10_000);
      });
      expect(acts.attemptWebhookDelivery.mock.calls.map(([input]) => [input.attemptNumber, input.nextDelayMs])).toEqual([
        [1, MINUTE],
        [2, 5 * MINUTE],
        [3, 30 * MINUTE],
        [4, 2 * HOUR],
        [5, 8 * HOUR],
        [6, 24 * HOUR],
        [7, null],
      ]);
      expect(acts.failWebhookDelivery).toHaveBeenCalledWith('whd_1');
    });
  });

  it('stops retrying once the third attempt succeeds', async () => {
    const acts = activities(['failed', 'failed', 'succeeded']);
    await run(acts, async (taskQueue) => {
      const handle = await env.client.workflow.start(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_third-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_2' }],
      });
      expect(await handle.result()).toBe('succeeded');
      await env.sleep(2 * 24 * HOUR);
      expect(acts.attemptWebhookDelivery).toHaveBeenCalledTimes(3);
      expect(gaps(acts.times).map((g) => Math.round(g / MINUTE))).toEqual([1, 5]);
      expect(acts.failWebhookDelivery).not.toHaveBeenCalled();
    });
  });

  it('ends without sending again when the delivery was stopped (endpoint disabled or deleted)', async () => {
    const acts = activities(['failed', 'stopped']);
    await run(acts, async (taskQueue) => {
      const result = await env.client.workflow.execute(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_stopped-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_3' }],
      });
      expect(result).toBe('stopped');
      expect(acts.attemptWebhookDelivery).toHaveBeenCalledTimes(2);
      expect(acts.failWebhookDelivery).not.toHaveBeenCalled();
    });
  });

  it('counts an attempt whose activity broke as a failed attempt and keeps to the schedule', async () => {
    const acts = activities([]);
    acts.attemptWebhookDelivery.mockImplementationOnce(async () => {
      acts.times.push(await env.currentTimeMs());
      throw new Error('database unavailable');
    });
    acts.attemptWebhookDelivery.mockImplementationOnce(async () => {
      acts.times.push(await env.currentTimeMs());
      return 'succeeded';
    });
    await run(acts, async (taskQueue) => {
      const result = await env.client.workflow.execute(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_broke-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_4' }],
      });
      expect(result).toBe('succeeded');
      expect(acts.attemptWebhookDelivery).toHaveBeenCalledTimes(2); // not retried by Temporal: maximumAttempts 1
      expect(Math.round(gaps(acts.times)[0] / MINUTE)).toBe(1);
    });
  });
});
