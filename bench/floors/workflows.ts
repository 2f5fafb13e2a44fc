import { condition, defineUpdate, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/** F4's workflow: one no-op activity, the least a workflow-driven state change can cost. */
export async function benchNoopWorkflow(): Promise<void> {
  await noop();
}

/** (p)'s floor: the pay Update's shape, with nothing of the service's in it. */
export const floorPayUpdate = defineUpdate<{ status: 'completed' }, [string]>('pay');

type PayFloorSteps = { begin(): Promise<void>; charge(): Promise<void>; complete(): Promise<void> };
const local = proxyLocalActivities<PayFloorSteps>({ startToCloseTimeout: '30 seconds' });
const remote = proxyActivities<PayFloorSteps>({ startToCloseTimeout: '30 seconds' });

/**
 * (p)'s floor workflow, started with its update as the pay call starts a session's checkout workflow: the
 * update runs what a payment's update runs (beginPayment as a local activity, chargeCard as an activity,
 * completePayment as a local activity), each with an empty body, and is answered when the last one ends.
 */
export async function benchPayFloorWorkflow(): Promise<void> {
  let paid = false;
  setHandler(floorPayUpdate, async () => {
    await local.begin();
    await remote.charge();
    await local.complete();
    paid = true;
    return { status: 'completed' as const };
  });
  await condition(() => paid);
}
