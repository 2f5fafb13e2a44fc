import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { SessionSweepActivities } from '../activities/session-sweep.js';
import { sweepNowSignal } from '../contracts/checkout.js';

const { expireDueSessions } = proxyActivities<SessionSweepActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** The least time between two sweeps: sessions expiring within it are cancelled together. */
const MIN_GAP_MS = 1_000;
/** Sweeps per run before the history starts afresh (each sweep adds about ten events). */
const SWEEPS_PER_RUN = 500;

/**
 * One per task queue (`session-expiry-<task queue>`), started by every worker. It owns the sessions'
 * clock: it sleeps on a durable timer until the next pending session's `expiresAt`, then cancels every
 * session due. One timer for all sessions, where a workflow per session would cost a workflow start
 * on every `POST /checkout/sessions`. The database says which sessions are due; this only says when.
 * Each sweep also hands payments left in doubt to their owner (activities/session-sweep.ts).
 */
export async function sessionExpiryWorkflow(): Promise<never> {
  let woken = false;
  setHandler(sweepNowSignal, () => {
    woken = true;
  });
  for (let sweep = 0; sweep < SWEEPS_PER_RUN && !workflowInfo().continueAsNewSuggested; sweep++) {
    woken = false;
    const { nextSweepAt } = await expireDueSessions();
    await condition(() => woken, Math.max(MIN_GAP_MS, Date.parse(nextSweepAt) - Date.now()));
  }
  return continueAsNew<typeof sessionExpiryWorkflow>();
}
