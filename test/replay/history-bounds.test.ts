/**
 * The one workflow whose history would grow without bound, the session expiry sweep (a loop of sweep and
 * sleep that never ends), starts afresh with continueAsNew; docs/decisions.md, Workflow versioning, says
 * why every other workflow's history is bounded. Run on the time-skipping server: 500 sweeps a minute
 * apart take minutes of test-server time, not hours.
 */
import type { Activities } from '../../activities/index.js';
import { sessionExpiryWorkflow } from '../../workflows/checkout-expiry.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

/** The workflow's SWEEPS_PER_RUN: what an operator sees as one run's length. */
const SWEEPS_PER_RUN = 500;

describe('the session expiry sweep keeps its history bounded', () => {
  it(`continues as new when the server suggests it or after ${SWEEPS_PER_RUN} sweeps, with the same id and a history of a few thousand events`, async () => {
    let sweeps = 0;
    // Always a session due a minute from now: the busiest realistic pace (MIN_GAP is 1 s, but a minute
    // keeps the test server's work small while making the same number of sweeps).
    const expireDueSessions: Activities['expireDueSessions'] = async () => {
      sweeps++;
      return { expired: 0, nextSweepAt: new Date((await env().currentTimeMs()) + 60_000).toISOString() };
    };
    const taskQueue = `history-bounds-${Math.random()}`;
    const worker = await testWorker(env(), taskQueue, { expireDueSessions });
    await worker.runUntil(async () => {
      const workflowId = `session-expiry-${taskQueue}`;
      const first = await env().client.workflow.start(sessionExpiryWorkflow, { workflowId, taskQueue });
      try {
        await env().sleep((SWEEPS_PER_RUN + 5) * 60_000);
        const firstRun = await env().client.workflow.getHandle(workflowId, first.firstExecutionRunId).describe();
        expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
        const latest = await env().client.workflow.getHandle(workflowId).describe();
        expect(latest.status.name).toBe('RUNNING');
        expect(latest.runId).not.toBe(first.firstExecutionRunId);
        expect(sweeps).toBeGreaterThan(SWEEPS_PER_RUN);

        const events = (await env().client.workflow.getHandle(workflowId, first.firstExecutionRunId).fetchHistory()).events ?? [];
        // Whichever comes first: the server's suggestion (at 4,096 events by default, about 370 sweeps of
        // 11 events) or SWEEPS_PER_RUN.
        const sweepsInRun = events.filter((e) => e.activityTaskScheduledEventAttributes).length;
        expect(sweepsInRun).toBeGreaterThan(100);
        expect(sweepsInRun).toBeLessThanOrEqual(SWEEPS_PER_RUN);
        expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
        // Well under the server's 10,240-event warning and 51,200-event limit.
        expect(events.length).toBeLessThan(6_000);
      } finally {
        await env().client.workflow.getHandle(workflowId).terminate('test over');
      }
    });
  }, 300_000);
});
