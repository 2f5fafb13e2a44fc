import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { retentionWorkflowContract } from '../../contracts/retention.js';
import { sessionExpiryWorkflowContract, sweepNowSignal } from '../../contracts/checkout.js';
import { retentionScheduleId, retentionWorkflowId, sessionExpiryWorkflowId } from '../../contracts/workflow-ids.js';

/** The schedule the retention schedule replaced: it purged Idempotency-Keys alone. */
const replacedScheduleId = (taskQueue: string) => `purge-idempotency-keys-${taskQueue}`;

function retentionSchedule(taskQueue: string): ScheduleOptions {
  return {
    scheduleId: retentionScheduleId(taskQueue),
    // Hourly: an expired key is harmless until purged (a claim takes an expired row over), and the other
    // rules' windows are days, so this only bounds the tables' size.
    spec: { intervals: [{ every: '1 hour' }] },
    action: {
      type: 'startWorkflow',
      // By its contract's name, which the worker registers it by (test/ops/workflow-names.test.ts).
      workflowType: retentionWorkflowContract.name,
      workflowId: retentionWorkflowId(taskQueue),
      taskQueue,
      args: [],
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
  };
}

/**
 * Creates the retention schedule, or brings an existing one up to this code's definition, and removes
 * the schedule it replaced. Every worker calls it at start; the outcome is the same however many do.
 */
export async function ensureRetentionSchedule(client: Client, taskQueue: string): Promise<void> {
  const options = retentionSchedule(taskQueue);
  try {
    await client.schedule.create(options);
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(options.scheduleId)
      .update((previous) => ({ ...previous, spec: options.spec, action: options.action, policies: options.policies }));
  }
  await client.schedule
    .getHandle(replacedScheduleId(taskQueue))
    .delete()
    .catch((err: unknown) => {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    });
}

/** One expiry sweep per task queue, like the purge schedule: each deployment sweeps its own database. */

/**
 * Starts the session expiry sweep, or wakes the running one so that it plans with this worker's
 * SESSION_TTL. Every worker calls it at start: a sweep an operator terminated comes back with the next
 * worker, and two workers still make one sweep.
 */
export async function ensureSessionExpirySweep(client: Client, taskQueue: string): Promise<void> {
  await client.workflow.signalWithStart(sessionExpiryWorkflowContract.name, {
    workflowId: sessionExpiryWorkflowId(taskQueue),
    taskQueue,
    signal: sweepNowSignal,
    signalArgs: [],
  });
}
