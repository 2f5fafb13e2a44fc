import type { WorkflowHandle } from '@temporalio/client';
import type { Activities } from '../../activities/index.js';
import { MAX_SWEEP_SLEEP_MS, nextSweepAt } from '../../src/modules/checkout/expiry.rules.js';
import { sessionExpiryWorkflow } from '../../workflows/checkout-expiry.js';
import { sweepNowSignal } from '../../contracts/checkout.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

/**
 * The sweep's activity over a table of sessions held here, on the test server's clock: it cancels what is
 * due and answers the next sweep time with the production rule (`nextSweepAt`).
 */
function sessionsTable(ttlMs: number) {
  const sessions = new Map<string, { expiresAt: number; status: string }>();
  let sweeps = 0;
  const expireDueSessions: Activities['expireDueSessions'] = async () => {
    sweeps++;
    const now = await env().currentTimeMs();
    let expired = 0;
    for (const s of sessions.values()) {
      if (s.status === 'pending' && s.expiresAt <= now) {
        s.status = 'cancelled';
        expired++;
      }
    }
    const pending = [...sessions.values()].filter((s) => s.status === 'pending').map((s) => s.expiresAt);
    const next = pending.length ? new Date(Math.min(...pending)) : null;
    return { expired, nextSweepAt: nextSweepAt(new Date(now), next, ttlMs).toISOString() };
  };
  return { sessions, expireDueSessions, sweeps: () => sweeps };
}

async function runSweep(
  activities: Partial<Activities>,
  fn: () => Promise<void>,
  started: (handle: WorkflowHandle<typeof sessionExpiryWorkflow>) => void = () => {},
) {
  const taskQueue = `session-expiry-${Math.random()}`;
  const worker = await testWorker(env(), taskQueue, activities);
  await worker.runUntil(async () => {
    const handle = await env().client.workflow.start(sessionExpiryWorkflow, { workflowId: `session-expiry-${Math.random()}`, taskQueue });
    started(handle);
    try {
      await fn();
    } finally {
      await handle.terminate('test over');
    }
  });
}

describe('the session expiry sweep', () => {
  it('cancels a session still pending 24 h after creation, and not a moment before', async () => {
    const table = sessionsTable(DAY);
    await runSweep({ expireDueSessions: table.expireDueSessions }, async () => {
      const createdAt = await env().currentTimeMs();
      table.sessions.set('s-1', { expiresAt: createdAt + DAY, status: 'pending' });
      await env().sleep(DAY - 60_000);
      expect(table.sessions.get('s-1')?.status).toBe('pending');
      await env().sleep(120_000);
      expect(table.sessions.get('s-1')?.status).toBe('cancelled');
    });
  });

  it('sleeps until the next expiry rather than polling, and cancels each session at its own time', async () => {
    const ttl = 30 * 60_000;
    const table = sessionsTable(ttl);
    await runSweep({ expireDueSessions: table.expireDueSessions }, async () => {
      const t0 = await env().currentTimeMs();
      table.sessions.set('early', { expiresAt: t0 + ttl, status: 'pending' });
      table.sessions.set('paid', { expiresAt: t0 + ttl, status: 'completed' });
      await env().sleep(20 * 60_000);
      table.sessions.set('late', { expiresAt: (await env().currentTimeMs()) + ttl, status: 'pending' });
      await env().sleep(11 * 60_000);
      expect(table.sessions.get('early')?.status).toBe('cancelled');
      expect(table.sessions.get('paid')?.status).toBe('completed');
      expect(table.sessions.get('late')?.status).toBe('pending');
      await env().sleep(20 * 60_000);
      expect(table.sessions.get('late')?.status).toBe('cancelled');
      // One at start, one per expiry and one every MAX_SWEEP_SLEEP_MS at most: 51 minutes of per-second
      // polling would have been thousands.
      expect(table.sweeps()).toBeLessThanOrEqual(1 + 2 + Math.ceil((51 * 60_000) / MAX_SWEEP_SLEEP_MS));
    });
  });

  it('with nothing pending, wakes within a TTL, so a session created meanwhile is not missed', async () => {
    const ttl = 10 * 60_000;
    const table = sessionsTable(ttl);
    await runSweep({ expireDueSessions: table.expireDueSessions }, async () => {
      await env().sleep(5 * 60_000);
      table.sessions.set('s-2', { expiresAt: (await env().currentTimeMs()) + ttl, status: 'pending' });
      await env().sleep(ttl + 60_000);
      expect(table.sessions.get('s-2')?.status).toBe('cancelled');
    });
  });

  it('sweeps at once when told to (a worker starting), and plans afresh from there', async () => {
    const table = sessionsTable(DAY);
    let handle!: WorkflowHandle<typeof sessionExpiryWorkflow>;
    await runSweep({ expireDueSessions: table.expireDueSessions }, async () => {
      // Asleep with nothing pending; then a session that expires sooner than the sweep's next wake-up.
      await env().sleep(10_000);
      table.sessions.set('short', { expiresAt: (await env().currentTimeMs()) + 20_000, status: 'pending' });
      await handle.signal(sweepNowSignal);
      await env().sleep(30_000);
      expect(table.sessions.get('short')?.status).toBe('cancelled');
    }, (h) => (handle = h));
  });

  it('keeps sweeping after a failed sweep (the activity is retried)', async () => {
    const table = sessionsTable(DAY);
    let failures = 1;
    const flaky: Activities['expireDueSessions'] = async () => {
      if (failures-- > 0) throw new Error('database unavailable');
      return table.expireDueSessions();
    };
    await runSweep({ expireDueSessions: flaky }, async () => {
      table.sessions.set('s-3', { expiresAt: (await env().currentTimeMs()) + HOUR, status: 'pending' });
      await env().sleep(HOUR + 60_000);
      expect(table.sessions.get('s-3')?.status).toBe('cancelled');
    });
  });
});
