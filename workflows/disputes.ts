import {
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { DisputeActivities, DisputeNotice, DisputeProgress } from '../activities/disputes.js';
import { awaitsResponse, isClosed, stageOf, type Outcome } from '../contracts/disputes.js';
import { EvidenceDueBy, PaymentStatus } from '../contracts/search-attributes.js';

export interface DisputeWorkflowInput {
  notice: DisputeNotice;
  /** How long after the start the notice arrives: the simulated acquirer's few seconds; 0 for one an operator entered. */
  noticeDelayMs: number;
  /** DISPUTE_RESPONSE_WINDOW and DISPUTE_REVIEW_PERIOD at the notice: in the input, so every replay waits the same. */
  responseWindowMs: number;
  reviewPeriodMs: number;
}

/** How the dispute ended, or `reversed`: the notice opened nothing (the session refunded, or disputed already). */
export type DisputeWorkflowResult = DisputeProgress['status'] | 'reversed';

/** Sent through the outbox once a merchant's submission or acceptance has committed: the dispute as it then was. */
export const disputeChangedSignal = defineSignal<[progress: DisputeProgress]>('disputeChanged');
/** The acquirer's decision, entered by an operator (`npm run admin -- dispute decide`); answers the dispute after it (null: no dispute opened). */
export const decideDisputeUpdate = defineUpdate<DisputeProgress | null, [outcome: Outcome]>('decide');
export const disputeProgressQuery = defineQuery<DisputeProgress | null>('status');

/** `dispute.evidence_due_soon` goes out this long before `evidenceDueBy`. */
export const REMINDER_BEFORE_MS = 48 * 3600 * 1000;
/** The shortest wait before asking again when the database found the deadline not yet passed (clocks apart). */
const MIN_RECHECK_MS = 1000;

// Short database transactions, as local activities (workflows/refunds.ts says why that is as durable);
// retried until the database answers, each conditional on the dispute's status.
const steps = proxyLocalActivities<DisputeActivities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumInterval: '1 minute' } });

/**
 * One per dispute (`dispute-dsp_…`), from the acquirer's notice to the last cent. Its clocks: the notice's
 * arrival, the 48-hour reminder and the evidence deadline (a chargeback lost, an inquiry closed, when
 * nothing was submitted), and the network's review after a submission. The merchant's submission or
 * acceptance reaches it as a signal after the API committed it; an operator's decision as an update.
 * The database holds the truth: every step re-reads it and answers the dispute as it is.
 */
export async function disputeWorkflow(input: DisputeWorkflowInput): Promise<DisputeWorkflowResult> {
  const id = input.notice.disputeId;
  // Declared wide: they change in the handlers below, which the compiler's narrowing cannot see.
  let record = null as DisputeProgress | null;
  let changes = 0;
  let decision = null as Outcome | null;
  // Answers arrive from activities and signals, possibly out of order: the one further along wins (stages
  // only move forward), and of two at one stage the later write (a fresh window's due date, say).
  const adopt = (next: DisputeProgress | null) => {
    if (!next) return;
    const ahead = !record || stageOf(next.status) > stageOf(record.status);
    const same = record && stageOf(next.status) === stageOf(record.status) && Date.parse(next.updatedAt) >= Date.parse(record.updatedAt);
    if (ahead || same) record = next;
  };
  setHandler(disputeProgressQuery, () => record);
  setHandler(disputeChangedSignal, (progress) => {
    adopt(progress);
    changes++;
  });
  let finished = false;
  setHandler(
    decideDisputeUpdate,
    async (outcome) => {
      // One decision at a time, and only on an open dispute (one still on its way opens first).
      await condition(() => finished || (record !== null && decision === null));
      if (finished || isClosed(record!.status)) return record;
      decision = outcome;
      await condition(() => decision === null);
      return record;
    },
    {
      validator: (outcome) => {
        if (outcome !== 'won' && outcome !== 'lost') throw new Error('The outcome is won or lost');
        if (record && isClosed(record.status)) throw new Error(`Dispute ${id} is already ${record.status}`);
      },
    },
  );

  if (input.noticeDelayMs > 0) {
    setCurrentDetails(`Waiting for the acquirer's notice of dispute ${id}`);
    await sleep(input.noticeDelayMs);
  }
  adopt(await steps.openDispute(input.notice, input.responseWindowMs));
  if (!record) {
    setCurrentDetails(`The notice of dispute ${id} opened nothing: the session was refunded or is disputed already`);
    finished = true;
    await condition(allHandlersFinished);
    return 'reversed';
  }
  const report = reporter();
  report(record);

  let remindedFor: string | null = null;
  let reviewedFor: string | null = null;
  let expiryAskedFor: string | null = null;
  while (!isClosed(record.status)) {
    const seen = changes;
    const woken = () => decision !== null || changes !== seen;
    if (decision) {
      setCurrentDetails(`Recording the acquirer's decision: ${decision}`);
      adopt(await steps.decideDispute(id, decision, input.responseWindowMs));
      decision = null;
    } else if (awaitsResponse(record.status)) {
      const dueBy = record.evidenceDueBy;
      const remindAt = Date.parse(dueBy) - REMINDER_BEFORE_MS;
      if (remindedFor !== dueBy && remindAt > Date.now()) {
        setCurrentDetails(`Needs a response: evidence due by ${dueBy}; a reminder goes out at ${new Date(remindAt).toISOString()}`);
        if (!(await condition(woken, remindAt - Date.now()))) {
          adopt(await steps.remindEvidenceDue(id));
          remindedFor = dueBy;
        }
      } else {
        setCurrentDetails(`Needs a response: evidence due by ${dueBy}; without it the dispute is lost (an inquiry closes)`);
        const wait = Math.max(Date.parse(dueBy) - Date.now(), expiryAskedFor === dueBy ? MIN_RECHECK_MS : 0);
        if (wait <= 0 || !(await condition(woken, wait))) {
          expiryAskedFor = dueBy;
          adopt(await steps.expireDispute(id));
        }
      }
    } else {
      const submittedAt = record.submittedAt!;
      if (reviewedFor !== submittedAt) {
        const reviewAt = Date.parse(submittedAt) + input.reviewPeriodMs;
        setCurrentDetails(`Under review since ${submittedAt}: the network reviews the evidence at ${new Date(reviewAt).toISOString()}`);
        const wait = reviewAt - Date.now();
        if (wait <= 0 || !(await condition(woken, wait))) {
          reviewedFor = submittedAt;
          adopt(await steps.reviewEvidence(id, input.responseWindowMs));
        }
      } else {
        setCurrentDetails(`Under review: waiting for the acquirer's decision (npm run admin -- dispute decide ${id} --outcome won|lost)`);
        await condition(woken);
      }
    }
    report(record);
  }
  // A decision accepted while the last step closed the dispute is answered with the closed dispute.
  finished = true;
  decision = null;
  setCurrentDetails(`Done: ${record.status}`);
  await condition(allHandlersFinished);
  return record.status;
}

/** Keeps `PaymentStatus` (the dispute's status) and `EvidenceDueBy` as the dispute is, upserting only a change. */
function reporter() {
  const attributes = workflowInfo().typedSearchAttributes;
  let status = attributes.get(PaymentStatus);
  let dueBy = attributes.get(EvidenceDueBy)?.toISOString();
  return (record: DisputeProgress) => {
    const changed = [];
    if (record.status !== status) changed.push({ key: PaymentStatus, value: (status = record.status) });
    if (record.evidenceDueBy !== dueBy) changed.push({ key: EvidenceDueBy, value: new Date((dueBy = record.evidenceDueBy)) });
    if (changed.length) upsertSearchAttributes(changed);
  };
}
