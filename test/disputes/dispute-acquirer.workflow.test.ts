/**
 * The dispute workflow for a real acquirer's dispute (`acquirer: 'stripe'` in its input, behind
 * `ACQUIRER_DISPUTES_PATCH`): the outcome is the acquirer's, arriving as its own event through the
 * `disputeChanged` signal, so the workflow neither expires the dispute at its deadline nor lets the
 * simulated network review the evidence; it sends the merchant's evidence to the acquirer once per
 * submission, tells it of an acceptance when the dispute ends, and still takes an operator's decision.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DisputeActivities } from '../../activities/disputes.js';
import type { DisputeNotice, DisputeProgress, DisputeStatus } from '../../contracts/disputes.js';
import { ACQUIRER_REFUSED } from '../../contracts/failure-types.js';
import { disputeWorkflow } from '../../workflows/disputes.js';
import { decideDisputeUpdate, disputeChangedSignal } from '../../contracts/disputes.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const WINDOW = 7 * DAY;

/** The dispute's row behind the activities, and what each step did. */
function acquirerDispute(opts: { refuseEvidence?: boolean } = {}) {
  const row = { status: 'needs_response' as DisputeStatus, evidenceDueBy: 0, submittedAt: null as number | null, updatedAt: 0 };
  const steps: string[] = [];
  const progress = (): DisputeProgress => ({
    id: 'dsp_1',
    status: row.status,
    evidenceDueBy: new Date(row.evidenceDueBy).toISOString(),
    submittedAt: row.submittedAt === null ? null : new Date(row.submittedAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  });
  const step = async (name: string) => {
    steps.push(name);
    return env().currentTimeMs();
  };
  const activities: DisputeActivities = {
    async openDispute() {
      Object.assign(row, { evidenceDueBy: (await step('open')) + WINDOW });
      return progress();
    },
    async remindEvidenceDue() {
      await step('remind');
      return progress();
    },
    async expireDispute() {
      await step('expire');
      return progress();
    },
    async reviewEvidence() {
      await step('review');
      return progress();
    },
    async decideDispute(_id, outcome) {
      Object.assign(row, { status: outcome, updatedAt: await step(`decide ${outcome}`) });
      return progress();
    },
    async submitEvidenceToAcquirer() {
      await step('send evidence');
      if (opts.refuseEvidence) throw ApplicationFailure.create({ type: ACQUIRER_REFUSED, message: 'no longer takes evidence', nonRetryable: true });
    },
    async acceptDisputeAtAcquirer() {
      await step('tell acceptance');
    },
  };
  /** What the API or the acquirer's event does: the row changes, then the workflow hears of it. */
  const change = async (handle: { signal: (def: typeof disputeChangedSignal, p: DisputeProgress) => Promise<void> }, status: DisputeStatus, submitted = false) => {
    const at = await env().currentTimeMs();
    Object.assign(row, { status, updatedAt: at, ...(submitted ? { submittedAt: at } : {}) });
    await handle.signal(disputeChangedSignal, progress());
  };
  return { row, steps, activities, change };
}

async function run(dispute: ReturnType<typeof acquirerDispute>, test: (handle: any) => Promise<void>) {
  const taskQueue = `acquirer-dispute-${Math.random()}`;
  const worker = await testWorker(env(), taskQueue, dispute.activities);
  const notice: DisputeNotice = { disputeId: 'dsp_1', checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', reason: 'fraudulent', amountInCents: null, inquiry: false };
  await worker.runUntil(async () => {
    const handle = await env().client.workflow.start(disputeWorkflow, {
      workflowId: `dispute-dsp_${Math.random()}`,
      taskQueue,
      args: [{ notice, noticeDelayMs: 0, responseWindowMs: WINDOW, reviewPeriodMs: 5000, acquirer: 'stripe' }],
    });
    await test(handle);
  });
}

describe("the dispute workflow for an acquirer's dispute", () => {
  it('does not close it at the deadline: the acquirer does, as its own event (its reminder still goes out)', async () => {
    const dispute = acquirerDispute();
    await run(dispute, async (handle) => {
      await env().sleep(WINDOW + 14 * DAY);
      expect(dispute.steps).toEqual(['open', 'remind']);
      await dispute.change(handle, 'lost');
      expect(await handle.result()).toBe('lost');
      expect(dispute.steps).toEqual(['open', 'remind', 'tell acceptance']);
    });
  });

  it('sends the evidence to the acquirer once per submission, with no simulated review, and ends on its decision', async () => {
    const dispute = acquirerDispute();
    await run(dispute, async (handle) => {
      await env().sleep(DAY);
      await dispute.change(handle, 'under_review', true);
      await env().sleep(30 * DAY);
      expect(dispute.steps).toEqual(['open', 'send evidence']);
      await dispute.change(handle, 'won');
      expect(await handle.result()).toBe('won');
      expect(dispute.steps).toEqual(['open', 'send evidence', 'tell acceptance']);
    });
  });

  it('goes on waiting when the acquirer refuses the evidence, and still takes an operator\'s decision', async () => {
    const dispute = acquirerDispute({ refuseEvidence: true });
    await run(dispute, async (handle) => {
      await dispute.change(handle, 'under_review', true);
      await env().sleep(DAY);
      expect(dispute.steps).toEqual(['open', 'send evidence']);
      expect(await handle.executeUpdate(decideDisputeUpdate, { args: [{ disputeId: 'dsp_1', outcome: 'lost' }] })).toMatchObject({ status: 'lost' });
      expect(await handle.result()).toBe('lost');
      expect(dispute.steps).toEqual(['open', 'send evidence', 'decide lost', 'tell acceptance']);
    });
  });
});
