import { jest } from '@jest/globals';
import type { ReserveActivities } from '../../activities/reserves.js';
import { reserveReleaseWorkflow } from '../../workflows/reserves.js';
import { reserveReleaseStateQuery } from '../../contracts/reserves.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const DAY = 24 * 3600 * 1000;

async function runWith(activities: Partial<ReserveActivities>, fn: (taskQueue: string) => Promise<void>) {
  const taskQueue = `reserve-${Math.random()}`;
  const worker = await testWorker(env(), taskQueue, activities);
  await worker.runUntil(fn(taskQueue));
}

describe('reserve release workflow', () => {
  it('holds a 90-day reserve through day 89 and releases it, moving the balance, at day 90', async () => {
    // Stands in for the database: the balance the release moves.
    const balance = { reserved: 1000, available: 0 };
    const releaseReserve = jest.fn<ReserveActivities['releaseReserve']>(async () => {
      balance.available += balance.reserved;
      balance.reserved = 0;
      return { status: 'released', releasedAmountInCents: 1000 };
    });
    await runWith({ releaseReserve }, async (taskQueue) => {
      const releaseAt = new Date((await env().currentTimeMs()) + 90 * DAY).toISOString();
      const handle = await env().client.workflow.start(reserveReleaseWorkflow, {
        workflowId: `reserve-release-res_${Math.random()}`,
        taskQueue,
        args: [{ reserveId: 'res_1', releaseAt }],
      });
      await env().sleep(89 * DAY);
      expect(await handle.query(reserveReleaseStateQuery)).toBe('holding');
      expect(releaseReserve).not.toHaveBeenCalled();
      expect(balance).toEqual({ reserved: 1000, available: 0 });

      await env().sleep(DAY);
      expect(await handle.result()).toBe('released');
      expect(releaseReserve).toHaveBeenCalledTimes(1);
      expect(releaseReserve).toHaveBeenCalledWith('res_1');
      expect(balance).toEqual({ reserved: 0, available: 1000 });
    });
  });

  it('waits for the database\'s releaseAt when the release is refused as early, and releases then', async () => {
    // The database holds the reserve for 90 days; this run was started believing 1 day (a reset, a
    // clock ahead, a start with a wrong date). The activity refuses anything before the database's date.
    const start = await env().currentTimeMs();
    const dueAt = start + 90 * DAY;
    const balance = { reserved: 1000, available: 0 };
    const calls: number[] = [];
    const releaseReserve = jest.fn<ReserveActivities['releaseReserve']>(async () => {
      const now = await env().currentTimeMs();
      calls.push(now);
      if (now < dueAt) return { status: 'active', releasedAmountInCents: 0, notDueUntil: new Date(dueAt).toISOString() };
      balance.available += balance.reserved;
      balance.reserved = 0;
      return { status: 'released', releasedAmountInCents: 1000 };
    });
    await runWith({ releaseReserve }, async (taskQueue) => {
      const handle = await env().client.workflow.start(reserveReleaseWorkflow, {
        workflowId: `reserve-release-res_${Math.random()}`,
        taskQueue,
        args: [{ reserveId: 'res_4', releaseAt: new Date(start + DAY).toISOString() }],
      });
      await env().sleep(2 * DAY);
      expect(releaseReserve).toHaveBeenCalledTimes(1);
      expect(await handle.query(reserveReleaseStateQuery)).toBe('holding');
      expect(balance).toEqual({ reserved: 1000, available: 0 });
      await env().sleep(87 * DAY);
      expect(releaseReserve).toHaveBeenCalledTimes(1);

      expect(await handle.result()).toBe('released');
      expect(releaseReserve).toHaveBeenCalledTimes(2);
      expect(calls[1]).toBeGreaterThanOrEqual(dueAt);
      expect(balance).toEqual({ reserved: 0, available: 1000 });
    });
  });

  it('releases nothing from a reserve that refunds consumed meanwhile', async () => {
    const releaseReserve = jest.fn<ReserveActivities['releaseReserve']>().mockResolvedValue({ status: 'consumed', releasedAmountInCents: 0 });
    await runWith({ releaseReserve }, async (taskQueue) => {
      const releaseAt = new Date((await env().currentTimeMs()) + DAY).toISOString();
      const handle = await env().client.workflow.start(reserveReleaseWorkflow, {
        workflowId: `reserve-release-res_${Math.random()}`,
        taskQueue,
        args: [{ reserveId: 'res_2', releaseAt }],
      });
      expect(await handle.result()).toBe('nothing_to_release');
      expect(releaseReserve).toHaveBeenCalledTimes(1);
    });
  });

  it('retries the release until the database answers', async () => {
    const releaseReserve = jest
      .fn<ReserveActivities['releaseReserve']>()
      .mockRejectedValueOnce(new Error('connection terminated'))
      .mockResolvedValue({ status: 'released', releasedAmountInCents: 5 });
    await runWith({ releaseReserve }, async (taskQueue) => {
      const handle = await env().client.workflow.start(reserveReleaseWorkflow, {
        workflowId: `reserve-release-res_${Math.random()}`,
        taskQueue,
        args: [{ reserveId: 'res_3', releaseAt: new Date(await env().currentTimeMs()).toISOString() }],
      });
      expect(await handle.result()).toBe('released');
      expect(releaseReserve).toHaveBeenCalledTimes(2);
    });
  });
});
