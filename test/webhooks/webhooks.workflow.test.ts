import { jest } from '@jest/globals';
import type { Activities } from '../../activities/index.js';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../contracts/webhooks.js';
import { webhookDeliveryWorkflow } from '../../workflows/webhooks.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
type Send = Activities['sendWebhookAttempt'];
type Fail = Activities['failWebhookDelivery'];
type Result = Awaited<ReturnType<Send>>;

/** What each mocked attempt answers: an outcome, or a whole result (a Retry-After, a turn to wait for). */
type Scripted = 'succeeded' | 'failed' | 'stopped' | Result;
const asResult = (answer: Scripted): Result =>
  typeof answer !== 'string' ? answer : answer === 'failed' ? { outcome: 'failed', retryAfterMs: null } : { outcome: answer };

/** Mocked activities that note the (skipped) time of each call. */
function activities(outcomes: Scripted[]) {
  const times: number[] = [];
  const sendWebhookAttempt = jest.fn<Send>(async () => {
    times.push(await env().currentTimeMs());
    return asResult(outcomes[times.length - 1] ?? 'failed');
  });
  const failWebhookDelivery = jest.fn<Fail>().mockResolvedValue(undefined);
  return { times, sendWebhookAttempt, failWebhookDelivery };
}

async function run(acts: ReturnType<typeof activities>, fn: (taskQueue: string) => Promise<void>) {
  const taskQueue = `webhooks-${Math.random()}`;
  const worker = await testWorker(env(), taskQueue, { sendWebhookAttempt: acts.sendWebhookAttempt, failWebhookDelivery: acts.failWebhookDelivery });
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
      const started = await env().currentTimeMs();
      const result = await env().client.workflow.execute(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_all-fail-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_1' }],
      });
      expect(result).toBe('failed');
      expect(acts.sendWebhookAttempt).toHaveBeenCalledTimes(7);
      // "Immediately": the first attempt waits for no timer (a few real seconds of task latency at most).
      expect(acts.times[0] - started).toBeLessThan(10_000);
      // Each gap is the spec's delay, plus only the real time the mocked attempt and task hand-offs take.
      gaps(acts.times).forEach((gap, i) => {
        expect(gap).toBeGreaterThanOrEqual(WEBHOOK_RETRY_DELAYS_MS[i + 1]);
        expect(gap).toBeLessThan(WEBHOOK_RETRY_DELAYS_MS[i + 1] + 10_000);
      });
      expect(acts.sendWebhookAttempt.mock.calls.map(([input]) => [input.attemptNumber, input.nextDelayMs, input.turnTaken])).toEqual([
        [1, MINUTE, false],
        [2, 5 * MINUTE, false],
        [3, 30 * MINUTE, false],
        [4, 2 * HOUR, false],
        [5, 8 * HOUR, false],
        [6, 24 * HOUR, false],
        [7, null, false],
      ]);
      expect(acts.failWebhookDelivery).toHaveBeenCalledWith('whd_1');
    });
  });

  it('stops retrying once the third attempt succeeds', async () => {
    const acts = activities(['failed', 'failed', 'succeeded']);
    await run(acts, async (taskQueue) => {
      const handle = await env().client.workflow.start(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_third-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_2' }],
      });
      expect(await handle.result()).toBe('succeeded');
      await env().sleep(2 * 24 * HOUR);
      expect(acts.sendWebhookAttempt).toHaveBeenCalledTimes(3);
      expect(gaps(acts.times).map((g) => Math.round(g / MINUTE))).toEqual([1, 5]);
      expect(acts.failWebhookDelivery).not.toHaveBeenCalled();
    });
  });

  it('ends without sending again when the delivery was stopped (endpoint disabled or deleted)', async () => {
    const acts = activities(['failed', 'stopped']);
    await run(acts, async (taskQueue) => {
      const result = await env().client.workflow.execute(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_stopped-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_3' }],
      });
      expect(result).toBe('stopped');
      expect(acts.sendWebhookAttempt).toHaveBeenCalledTimes(2);
      expect(acts.failWebhookDelivery).not.toHaveBeenCalled();
    });
  });

  it('counts an attempt whose activity broke as a failed attempt and keeps to the schedule', async () => {
    const acts = activities([]);
    acts.sendWebhookAttempt.mockImplementationOnce(async () => {
      acts.times.push(await env().currentTimeMs());
      throw new Error('database unavailable');
    });
    acts.sendWebhookAttempt.mockImplementationOnce(async () => {
      acts.times.push(await env().currentTimeMs());
      return { outcome: 'succeeded' };
    });
    await run(acts, async (taskQueue) => {
      const result = await env().client.workflow.execute(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_broke-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_4' }],
      });
      expect(result).toBe('succeeded');
      expect(acts.sendWebhookAttempt).toHaveBeenCalledTimes(2); // not retried by Temporal: maximumAttempts 1
      expect(Math.round(gaps(acts.times)[0] / MINUTE)).toBe(1);
    });
  });
});

describe('where an attempt runs', () => {
  it('inside the workflow task, as a local activity: one marker per attempt and no activity task', async () => {
    const acts = activities(['failed', 'succeeded']);
    await run(acts, async (taskQueue) => {
      const handle = await env().client.workflow.start(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_local-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_local' }],
      });
      expect(await handle.result()).toBe('succeeded');
      const { events } = await handle.fetchHistory();
      const localAttempts = events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
      expect(localAttempts).toHaveLength(2);
      expect(events!.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
      // The first attempt is recorded by the run's first workflow task: no task-queue round trip before it.
      const secondTask = events!.filter((e) => e.workflowTaskScheduledEventAttributes)[1];
      expect(events!.indexOf(localAttempts[0])).toBeLessThan(events!.indexOf(secondTask));
    });
  });

  it("waits for an attempt still under way elsewhere (a worker's that died), then keeps to the schedule", async () => {
    // The activity answers `wait` while the attempt's claim is younger than its 30 s limit, then its outcome.
    const acts = activities([{ outcome: 'wait', waitMs: 20_000 }, 'failed', 'succeeded']);
    await run(acts, async (taskQueue) => {
      const result = await env().client.workflow.execute(webhookDeliveryWorkflow, {
        workflowId: `webhook-delivery-whd_in-flight-${Math.random()}`,
        taskQueue,
        args: [{ deliveryId: 'whd_in-flight' }],
      });
      expect(result).toBe('succeeded');
      expect(acts.sendWebhookAttempt.mock.calls.map(([input]) => [input.attemptNumber, input.turnTaken])).toEqual([
        [1, false],
        [1, true],
        [2, false],
      ]);
      const [inFlight, schedule] = gaps(acts.times);
      expect(Math.round(inFlight / 1000)).toBe(20);
      expect(Math.round(schedule / MINUTE)).toBe(1);
    });
  });
});

describe('webhook delivery pacing (throttle and Retry-After)', () => {
  const start = (taskQueue: string, name: string) =>
    env().client.workflow.execute(webhookDeliveryWorkflow, {
      workflowId: `webhook-delivery-whd_${name}-${Math.random()}`,
      taskQueue,
      args: [{ deliveryId: `whd_${name}` }],
    });

  it("a receiver's Retry-After replaces the schedule's next delay, longer or shorter, and the attempt still counts", async () => {
    const acts = activities([
      { outcome: 'failed', retryAfterMs: 3 * HOUR }, // instead of 1 minute
      { outcome: 'failed', retryAfterMs: 10_000 }, // instead of 5 minutes
      'failed', // back on the schedule: 30 minutes
      'succeeded',
    ]);
    await run(acts, async (taskQueue) => {
      expect(await start(taskQueue, 'retry-after')).toBe('succeeded');
      const [first, second, third] = gaps(acts.times);
      expect(first).toBeGreaterThanOrEqual(3 * HOUR);
      expect(first).toBeLessThan(3 * HOUR + 10_000);
      expect(second).toBeGreaterThanOrEqual(10_000);
      expect(second).toBeLessThan(MINUTE);
      expect(Math.round(third / MINUTE)).toBe(30);
      expect(acts.sendWebhookAttempt.mock.calls.map(([input]) => input.attemptNumber)).toEqual([1, 2, 3, 4]);
    });
  });

  it('woken at its turn, waits out the gap after an attempt kept late, taking no new turn', async () => {
    const acts = activities([{ outcome: 'wait', waitMs: 2_000 }, { outcome: 'wait', waitMs: 300 }, 'succeeded']);
    await run(acts, async (taskQueue) => {
      expect(await start(taskQueue, 'gap')).toBe('succeeded');
      expect(acts.sendWebhookAttempt.mock.calls.map(([input]) => [input.attemptNumber, input.turnTaken])).toEqual([
        [1, false],
        [1, true],
        [1, true],
      ]);
    });
  });

  it("waits for the endpoint's turn without counting an attempt, then sends in the turn it took", async () => {
    const acts = activities([{ outcome: 'wait', waitMs: 45_000 }, 'failed', { outcome: 'wait', waitMs: 2 * HOUR }, 'succeeded']);
    await run(acts, async (taskQueue) => {
      expect(await start(taskQueue, 'throttled')).toBe('succeeded');
      const calls = acts.sendWebhookAttempt.mock.calls.map(([input]) => [input.attemptNumber, input.turnTaken]);
      // Attempt 1 waits its turn and is sent; attempt 2 (after the minute) waits two hours for its turn.
      expect(calls).toEqual([
        [1, false],
        [1, true],
        [2, false],
        [2, true],
      ]);
      const [turn1, schedule, turn2] = gaps(acts.times);
      expect(Math.round(turn1 / 1000)).toBe(45);
      expect(Math.round(schedule / MINUTE)).toBe(1);
      expect(Math.round(turn2 / MINUTE)).toBe(120);
      // Each send carries the workflow's clock, which measures the endpoint's failure streak.
      acts.sendWebhookAttempt.mock.calls.forEach(([input], i) => expect(Math.abs(input.now - acts.times[i])).toBeLessThan(10_000));
      expect(acts.failWebhookDelivery).not.toHaveBeenCalled();
    });
  });
});
