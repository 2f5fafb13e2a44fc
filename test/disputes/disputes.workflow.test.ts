import type { DisputeActivities } from '../../activities/disputes.js';
import type { DisputeNotice, DisputeProgress, DisputeStatus } from '../../contracts/disputes.js';
import { disputeWorkflow } from '../../workflows/disputes.js';
import { decideDisputeUpdate, disputeChangedSignal, disputeProgressQuery } from '../../contracts/disputes.js';
import { testWorker, useTimeSkippingEnv } from '../support/time-skipping.js';

const env = useTimeSkippingEnv();

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const WINDOW = 7 * DAY;
const REVIEW = 5000;

/**
 * Stands in for the database behind the dispute activities: the dispute's row, with the lifecycle's rules
 * (each step conditional on the status, the deadline checked by its own clock), and a log of what each
 * step did and when, on the test server's clock.
 */
function fakeDispute(kind: 'chargeback' | 'inquiry') {
  const row = {
    status: (kind === 'inquiry' ? 'warning_needs_response' : 'needs_response') as DisputeStatus,
    evidenceDueBy: 0,
    submittedAt: null as number | null,
    updatedAt: 0,
    evidence: '',
    reminders: [] as number[],
    withdrawals: 0,
    reinstated: 0,
  };
  const calls: { step: string; at: number }[] = [];
  const inquiry = () => row.status.startsWith('warning_');
  const progress = (): DisputeProgress => ({
    id: 'dsp_1',
    status: row.status,
    evidenceDueBy: new Date(row.evidenceDueBy).toISOString(),
    submittedAt: row.submittedAt === null ? null : new Date(row.submittedAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  });
  const now = async (step: string) => {
    const at = await env().currentTimeMs();
    calls.push({ step, at });
    return at;
  };
  const decide = (outcome: 'won' | 'lost', at: number) => {
    if (!['needs_response', 'under_review', 'warning_needs_response', 'warning_under_review'].includes(row.status)) return;
    row.updatedAt = at;
    if (inquiry() && outcome === 'lost') {
      Object.assign(row, { status: 'needs_response', evidenceDueBy: at + WINDOW, submittedAt: null });
      row.withdrawals++;
    } else if (inquiry()) row.status = 'warning_closed';
    else {
      row.status = outcome;
      if (outcome === 'won') row.reinstated++;
    }
  };
  const activities: DisputeActivities = {
    async openDispute() {
      const at = await now('open');
      Object.assign(row, { evidenceDueBy: at + WINDOW, updatedAt: at });
      if (!inquiry()) row.withdrawals++;
      return progress();
    },
    async remindEvidenceDue() {
      row.reminders.push(await now('remind'));
      return progress();
    },
    async expireDispute() {
      const at = await now('expire');
      if (row.status.endsWith('needs_response') && at >= row.evidenceDueBy) {
        Object.assign(row, { status: inquiry() ? 'warning_closed' : 'lost', updatedAt: at });
      }
      return progress();
    },
    async reviewEvidence() {
      const at = await now('review');
      if (row.status.endsWith('under_review') && row.evidence.includes('winning_evidence')) decide('won', at);
      else if (row.status.endsWith('under_review') && row.evidence.includes('losing_evidence')) decide('lost', at);
      return progress();
    },
    async decideDispute(_id, outcome) {
      decide(outcome, await now(`decide ${outcome}`));
      return progress();
    },
    async submitEvidenceToAcquirer() {
      await now('send evidence');
    },
    async acceptDisputeAtAcquirer() {
      await now('tell acceptance');
    },
  };
  /** What the API does on a submission: the row changes, then the workflow hears of it. */
  const submit = async (handle: { signal: (def: typeof disputeChangedSignal, p: DisputeProgress) => Promise<void> }, evidence: string) => {
    const at = await env().currentTimeMs();
    Object.assign(row, { evidence, submittedAt: at, updatedAt: at, status: inquiry() ? 'warning_under_review' : 'under_review' });
    await handle.signal(disputeChangedSignal, progress());
  };
  return { row, calls, activities, submit, steps: () => calls.map((c) => c.step) };
}

async function run(kind: 'chargeback' | 'inquiry', test: (dispute: ReturnType<typeof fakeDispute>, start: () => Promise<any>, t0: number) => Promise<void>) {
  const dispute = fakeDispute(kind);
  const taskQueue = `dispute-${Math.random()}`;
  const worker = await testWorker(env(), taskQueue, dispute.activities);
  const notice: DisputeNotice = { disputeId: 'dsp_1', checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e', reason: 'fraudulent', amountInCents: null, inquiry: kind === 'inquiry' };
  const t0 = await env().currentTimeMs();
  const start = () =>
    env().client.workflow.start(disputeWorkflow, {
      workflowId: `dispute-dsp_${Math.random()}`,
      taskQueue,
      args: [{ notice, noticeDelayMs: 0, responseWindowMs: WINDOW, reviewPeriodMs: REVIEW }],
    });
  await worker.runUntil(test(dispute, start, t0));
}

describe('dispute workflow', () => {
  it('loses a chargeback by silence when the 7-day window passes, and not a moment before', async () => {
    await run('chargeback', async (dispute, start, t0) => {
      const handle = await start();
      await env().sleep(7 * DAY - HOUR);
      expect(dispute.row.status).toBe('needs_response');
      expect(dispute.steps()).toEqual(['open', 'remind']);
      expect((await handle.query(disputeProgressQuery))?.status).toBe('needs_response');

      expect(await handle.result()).toBe('lost');
      const expiry = dispute.calls.find((c) => c.step === 'expire')!;
      expect(expiry.at - t0).toBeGreaterThanOrEqual(WINDOW);
      expect(expiry.at - t0).toBeLessThan(WINDOW + HOUR);
      expect(dispute.steps()).toEqual(['open', 'remind', 'expire']);
      expect(dispute.row).toMatchObject({ withdrawals: 1, reinstated: 0 });
    });
  });

  it('sends the reminder 48 hours before the deadline, once, and none once evidence is submitted', async () => {
    await run('chargeback', async (dispute, start, t0) => {
      const handle = await start();
      await env().sleep(5 * DAY - HOUR);
      expect(dispute.row.reminders).toEqual([]);
      await env().sleep(2 * HOUR);
      expect(dispute.row.reminders).toHaveLength(1);
      expect(dispute.row.reminders[0] - t0).toBeGreaterThanOrEqual(5 * DAY);
      expect(dispute.row.reminders[0] - t0).toBeLessThan(5 * DAY + HOUR);
      await dispute.submit(handle, 'winning_evidence');
      expect(await handle.result()).toBe('won');
      expect(dispute.row.reminders).toHaveLength(1);
    });
    await run('chargeback', async (dispute, start) => {
      const handle = await start();
      await env().sleep(DAY);
      await dispute.submit(handle, 'The parcel was signed for.');
      await env().sleep(10 * DAY);
      expect(dispute.row.reminders).toEqual([]);
      expect(dispute.steps()).toEqual(['open', 'review']);
      await handle.terminate('done');
    });
  });

  it('closes an inquiry left unanswered as warning_closed, moving no money', async () => {
    await run('inquiry', async (dispute, start) => {
      const handle = await start();
      expect(await handle.result()).toBe('warning_closed');
      expect(dispute.steps()).toEqual(['open', 'remind', 'expire']);
      expect(dispute.row).toMatchObject({ withdrawals: 0, reinstated: 0 });
    });
  });

  it('closes an inquiry whose evidence wins, REVIEW after the submission', async () => {
    await run('inquiry', async (dispute, start) => {
      const handle = await start();
      await env().sleep(HOUR);
      await dispute.submit(handle, 'winning_evidence');
      const submittedAt = dispute.row.submittedAt!;
      expect(await handle.result()).toBe('warning_closed');
      const review = dispute.calls.find((c) => c.step === 'review')!;
      expect(review.at - submittedAt).toBeGreaterThanOrEqual(REVIEW);
      expect(dispute.row.withdrawals).toBe(0);
    });
  });

  it('escalates an inquiry whose evidence loses to a chargeback with a fresh window, which silence then loses', async () => {
    await run('inquiry', async (dispute, start) => {
      const handle = await start();
      await env().sleep(2 * DAY);
      await dispute.submit(handle, 'losing_evidence');
      await env().sleep(REVIEW + 1000);
      expect(dispute.row).toMatchObject({ status: 'needs_response', submittedAt: null, withdrawals: 1 });
      const escalatedAt = dispute.calls.find((c) => c.step === 'review')!.at;
      expect(dispute.row.evidenceDueBy).toBe(escalatedAt + WINDOW);
      expect((await handle.query(disputeProgressQuery))?.status).toBe('needs_response');

      expect(await handle.result()).toBe('lost');
      // The first window's reminder went out before the submission; the fresh window has its own.
      expect(dispute.row.reminders).toHaveLength(1);
      expect(dispute.row.reminders[0]).toBeGreaterThanOrEqual(escalatedAt + 5 * DAY);
      expect(dispute.calls.find((c) => c.step === 'expire')!.at).toBeGreaterThanOrEqual(escalatedAt + WINDOW);
    });
  });

  it('records an operator decision that arrives weeks after the deadline, for evidence the network left under review', async () => {
    await run('chargeback', async (dispute, start, t0) => {
      const handle = await start();
      await env().sleep(6 * DAY);
      await dispute.submit(handle, 'Tracking 1Z999AA10123456784, signed for.');
      await env().sleep(14 * DAY);
      // Past the deadline: submitted in time, so nothing expires; the network gave no decision.
      expect(dispute.row.status).toBe('under_review');
      expect(dispute.steps()).toEqual(['open', 'remind', 'review']);

      const decided = await handle.executeUpdate(decideDisputeUpdate, { args: [{ disputeId: 'dsp_1', outcome: 'won' }] });
      expect(decided?.status).toBe('won');
      expect(await handle.result()).toBe('won');
      expect(dispute.calls.at(-1)!.step).toBe('decide won');
      expect(dispute.calls.at(-1)!.at - t0).toBeGreaterThanOrEqual(20 * DAY);
      expect(dispute.row).toMatchObject({ withdrawals: 1, reinstated: 1 });
    });
  });

  it('refuses a decision once the dispute is closed', async () => {
    await run('chargeback', async (dispute, start) => {
      const handle = await start();
      await env().sleep(8 * DAY);
      expect(dispute.row.status).toBe('lost');
      await expect(handle.executeUpdate(decideDisputeUpdate, { args: [{ disputeId: 'dsp_1', outcome: 'won' }] })).rejects.toThrow();
      expect(dispute.row.reinstated).toBe(0);
    });
  });
});

describe('dispute workflow: every message names its dispute', () => {
  it("ignores a disputeChanged signal naming another dispute, even one that says closed: the deadline still holds", async () => {
    await run('chargeback', async (dispute, start, t0) => {
      const handle = await start();
      await env().sleep(DAY);
      // Copied from another dispute's history: that one was lost. This row is still open.
      const copied: DisputeProgress = { id: 'dsp_other', status: 'lost', evidenceDueBy: new Date(t0).toISOString(), submittedAt: null, updatedAt: new Date(t0 + DAY).toISOString() };
      await handle.signal(disputeChangedSignal, copied);
      await env().sleep(HOUR);
      expect((await handle.query(disputeProgressQuery))?.status).toBe('needs_response');
      // The evidence deadline is enforced: the row is lost by silence at its own deadline, not before.
      expect(await handle.result()).toBe('lost');
      expect(dispute.steps()).toEqual(['open', 'remind', 'expire']);
      expect(dispute.calls.at(-1)!.at - t0).toBeGreaterThanOrEqual(WINDOW);
    });
  });

  it("refuses a decision naming another dispute, or none, and records one naming its own", async () => {
    await run('chargeback', async (dispute, start) => {
      const handle = await start();
      await env().sleep(DAY);
      await expect(handle.executeUpdate(decideDisputeUpdate, { args: [{ disputeId: 'dsp_other', outcome: 'won' }] })).rejects.toHaveProperty(
        'cause.message',
        'The decision names dsp_other, not dispute dsp_1',
      );
      // The bare outcome runs begun before the patch were sent: refused in a run begun after it.
      await expect(handle.executeUpdate(decideDisputeUpdate, { args: ['won' as never] })).rejects.toHaveProperty('cause.message', 'The decision names no dispute, not dispute dsp_1');
      expect(dispute.row).toMatchObject({ status: 'needs_response', reinstated: 0 });
      expect(await handle.executeUpdate(decideDisputeUpdate, { args: [{ disputeId: 'dsp_1', outcome: 'lost' }] })).toMatchObject({ status: 'lost' });
      expect(await handle.result()).toBe('lost');
      expect(dispute.steps()).toEqual(['open', 'decide lost']);
    });
  });
});
