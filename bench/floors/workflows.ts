import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/** F4's workflow: one no-op activity, the least a workflow-driven state change can cost. */
export async function benchNoopWorkflow(): Promise<void> {
  await noop();
}
