import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { purgeIdempotencyKeysWorkflow } from '../../workflows/idempotency.js';
import { sessionExpiryWorkflow, sweepNowSignal } from '../../workflows/checkout-expiry.js';

/** One schedule per task queue, so every deployment (and every test worker) purges its own database. */
export const purgeScheduleId = (taskQueue: string) => `purge-idempotency-keys-${taskQueue}`;

function purgeSchedule(taskQueue: string): ScheduleOptions {
  return {
    scheduleId: purgeScheduleId(taskQueue),
    // Hourly: an expired key is harmless until purged (a claim takes an expired row over), so this only
    // bounds the table's size.
    spec: { intervals: [{ every: '1 hour' }] },
    action: {
      type: 'startWorkflow',
      // By reference: the SDK sends the function's name, and go-to-definition reaches the workflow.
      workflowType: purgeIdempotencyKeysWorkflow,
      workflowId: `purge-idempotency-keys-${taskQueue}`,
      taskQueue,
      args: [],
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
  };
}

/**
 * Creates the schedule, or brings an existing one up to this code's definition. Every worker calls it
 * at start; the outcome is the same however many do.
 */
export async function ensurePurgeSchedule(client: Client, taskQueue: string): Promise<void> {
  const options = purgeSchedule(taskQueue);
  try {
    await client.schedule.create(options);
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(options.scheduleId)
      .update((previous) => ({ ...previous, spec: options.spec, action: options.action, policies: options.policies }));
  }
}

/** One expiry sweep per task queue, like the purge schedule: each deployment sweeps its own database. */
export const sessionExpiryWorkflowId = (taskQueue: string) => `session-expiry-${taskQueue}`;

/**
 * Starts the session expiry sweep, or wakes the running one so that it plans with this worker's
 * SESSION_TTL. Every worker calls it at start: a sweep an operator terminated comes back with the next
 * worker, and two workers still make one sweep.
 */
export async function ensureSessionExpirySweep(client: Client, taskQueue: string): Promise<void> {
  await client.workflow.signalWithStart(sessionExpiryWorkflow, {
    workflowId: sessionExpiryWorkflowId(taskQueue),
    taskQueue,
    signal: sweepNowSignal,
    signalArgs: [],
  });
}
