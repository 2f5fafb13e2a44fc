import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { DisputeActivities } from '../activities/disputes.js';
import {
  awaitsResponse,
  decideDisputeUpdate,
  disputeChangedSignal,
  disputeProgressQuery,
  isClosed,
  stageOf,
  type DisputeDecision,
  type DisputeProgress,
  type DisputeWorkflowInput,
  type DisputeWorkflowResult,
  type Outcome,
} from '../contracts/disputes.js';
import { ACQUIRER_REFUSED } from '../contracts/failure-types.js';
import { EvidenceDueBy, PaymentStatus } from '../contracts/search-attributes.js';

/**
 * Every message to the workflow names its dispute and the workflow refuses one that names another. Runs
 * begun before this patch were sent the bare outcome (`'won'`) and adopted any record: they keep taking
 * both shapes (an operator's CLI of the release before may still send the old one), so they replay as
 * they ran (`dispute-*-before-named-messages.json`).
 */
export const NAMED_MESSAGES_PATCH = 'messages-name-their-record';

/**
 * A real acquirer's dispute (`input.acquirer`): evidence sent to it, no expiry or simulated review of our
 * own, and its acceptance told to it. Only runs started with an acquirer take this path; asked once, at
 * the start, like the patch above.
 */
export const ACQUIRER_DISPUTES_PATCH = 'acquirer-disputes';

/** `dispute.evidence_due_soon` goes out this long before `evidenceDueBy`. */
export const REMINDER_BEFORE_MS = 48 * 3600 * 1000;
/** The shortest wait before asking again when the database found the deadline not yet passed (clocks apart). */
const MIN_RECHECK_MS = 1000;

// Short database transactions, as local activities (workflows/refunds.ts says why that is as durable);
// retried until the database answers, each conditional on the dispute's status.
const steps = proxyLocalActivities<DisputeActivities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumInterval: '1 minute' } });
// Calls to the acquirer: activities of their own (another worker may take them), heartbeating, retried
// until the acquirer answers; its refusal is not retried (ACQUIRER_REFUSED).
const acquirerCalls = proxyActivities<DisputeActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes', nonRetryableErrorTypes: [ACQUIRER_REFUSED] },
});

/**
 * One per dispute (`dispute-dsp_…`), from the acquirer's notice to the last cent. Its clocks: the notice's
 * arrival, the 48-hour reminder and the evidence deadline (a chargeback lost, an inquiry closed, when
 * nothing was submitted), and the network's review after a submission. The merchant's submission or
 * acceptance reaches it as a signal after the API committed it; an operator's decision as an update.
 * The database holds the truth: every step re-reads it and answers the dispute as it is.
 */
export async function disputeWorkflow(input: DisputeWorkflowInput): Promise<DisputeWorkflowResult> {
  // Asked once, before the first command: a run that began without the patch never switches mid-way.
  const dispute = new FollowedDispute(input, patched(NAMED_MESSAGES_PATCH), Boolean(input.acquirer) && patched(ACQUIRER_DISPUTES_PATCH));
  dispute.listen();
  if (input.noticeDelayMs > 0) {
    setCurrentDetails(`Waiting for the acquirer's notice of dispute ${dispute.id}`);
    await sleep(input.noticeDelayMs);
  }
  dispute.adopt(await steps.openDispute(input.notice, input.responseWindowMs));
  if (!dispute.record) {
    await dispute.end(`The notice of dispute ${dispute.id} opened nothing: the session was refunded or is disputed already`);
    return 'reversed';
  }
  const report = reporter();
  report(dispute.record);
  while (!isClosed(dispute.record.status)) {
    await dispute.step();
    report(dispute.record);
  }
  await dispute.tellAcquirer();
  // A decision accepted while the last step closed the dispute is answered with the closed dispute.
  await dispute.end(`Done: ${dispute.record.status}`);
  return dispute.record.status;
}

/**
 * The dispute as its workflow follows it: the record as last heard, the signals and the decision that
 * wait, and which clock last fired for which due date or submission (each fires once for it).
 */
class FollowedDispute {
  readonly id: string;
  record: DisputeProgress | null = null;
  /** Signals heard: a wait ends when one arrives. */
  private changes = 0;
  private decision: Outcome | null = null;
  private finished = false;
  private remindedFor: string | null = null;
  private reviewedFor: string | null = null;
  private expiryAskedFor: string | null = null;
  /** The submission whose evidence went to the acquirer (once each). */
  private sentFor: string | null = null;
  private readonly input: DisputeWorkflowInput;
  /** Messages must name this dispute (`NAMED_MESSAGES_PATCH`); false only in runs begun before it. */
  private readonly named: boolean;
  /** The acquirer decides (`ACQUIRER_DISPUTES_PATCH`): false for the simulator's and an operator's disputes. */
  private readonly acquirerDecides: boolean;

  constructor(input: DisputeWorkflowInput, named: boolean, acquirerDecides: boolean) {
    this.input = input;
    this.id = input.notice.disputeId;
    this.named = named;
    this.acquirerDecides = acquirerDecides;
  }

  /** A message's record is this dispute's, or (only in a run begun before the patch) it names none. */
  private isOwn(id: string | null): boolean {
    return id === null ? !this.named : id === this.id;
  }

  /**
   * Answers arrive from activities and signals, possibly out of order: the one further along wins (stages
   * only move forward), and of two at one stage the later write (a fresh window's due date, say).
   */
  adopt(next: DisputeProgress | null): void {
    if (!next) return;
    const record = this.record;
    const ahead = !record || stageOf(next.status) > stageOf(record.status);
    const same = record && stageOf(next.status) === stageOf(record.status) && Date.parse(next.updatedAt) >= Date.parse(record.updatedAt);
    if (ahead || same) this.record = next;
  }

  /** The status query, the merchant's changes (a signal) and the operator's decision (an update). */
  listen(): void {
    setHandler(disputeProgressQuery, () => this.record);
    setHandler(disputeChangedSignal, (progress) => {
      // A signal cannot be refused: one naming another dispute (a payload copied from its history) is
      // ignored, so it can neither end this run nor move its clocks while the row stays open.
      if (!this.isOwn(progress?.id ?? null)) {
        log.warn('Ignored a disputeChanged signal naming another dispute', { disputeId: this.id, named: progress?.id });
        return;
      }
      this.adopt(progress);
      this.changes++;
    });
    setHandler(
      decideDisputeUpdate,
      async (decision) => {
        const { outcome } = decisionOf(decision);
        // One decision at a time, and only on an open dispute (one still on its way opens first).
        await condition(() => this.finished || (this.record !== null && this.decision === null));
        if (this.finished || isClosed(this.record!.status)) return this.record;
        this.decision = outcome;
        await condition(() => this.decision === null);
        return this.record;
      },
      {
        validator: (decision) => {
          const { disputeId, outcome } = decisionOf(decision);
          if (!this.isOwn(disputeId)) throw new Error(`The decision names ${disputeId ?? 'no dispute'}, not dispute ${this.id}`);
          if (outcome !== 'won' && outcome !== 'lost') throw new Error('The outcome is won or lost');
          if (this.record && isClosed(this.record.status)) throw new Error(`Dispute ${this.id} is already ${this.record.status}`);
        },
      },
    );
  }

  /** One turn of the open dispute: a decision that waits, else the clock of its stage (or a signal first). */
  async step(): Promise<void> {
    const record = this.record!;
    const seen = this.changes;
    const woken = () => this.decision !== null || this.changes !== seen;
    if (this.decision) await this.recordDecision(this.decision);
    else if (awaitsResponse(record.status)) await this.awaitResponse(record.evidenceDueBy, woken);
    else await this.awaitReview(record.submittedAt!, woken);
  }

  /** Every handler answered (a decision waiting gets the dispute as it ended), then the run may close. */
  async end(details: string): Promise<void> {
    this.finished = true;
    this.decision = null;
    setCurrentDetails(details);
    await condition(allHandlersFinished);
  }

  private async recordDecision(decision: Outcome): Promise<void> {
    setCurrentDetails(`Recording the acquirer's decision: ${decision}`);
    this.adopt(await steps.decideDispute(this.id, decision, this.input.responseWindowMs));
    this.decision = null;
  }

  /**
   * The acquirer's dispute, closed here by the merchant's acceptance: the acquirer is told (it does nothing
   * when the acquirer closed it). Its refusal is left in the details: the dispute is closed either way.
   */
  async tellAcquirer(): Promise<void> {
    if (!this.acquirerDecides) return;
    await this.atAcquirer('telling the acquirer the dispute is accepted', acquirerCalls.acceptDisputeAtAcquirer(this.id));
  }

  /** A call to the acquirer; its refusal is not retried, and is shown in the current details and the log. */
  private async atAcquirer(what: string, call: Promise<void>): Promise<void> {
    try {
      await call;
    } catch (err) {
      if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === ACQUIRER_REFUSED)) throw err;
      log.warn(`The acquirer refused ${what}`, { disputeId: this.id, message: err.cause.message });
      setCurrentDetails(`The acquirer refused ${what}: ${err.cause.message}`);
    }
  }

  /** Needs a response: the reminder 48 hours before `dueBy`, then, with nothing submitted, the expiry at it. */
  private async awaitResponse(dueBy: string, woken: () => boolean): Promise<void> {
    const remindAt = Date.parse(dueBy) - REMINDER_BEFORE_MS;
    if (this.remindedFor !== dueBy && remindAt > Date.now()) {
      setCurrentDetails(`Needs a response: evidence due by ${dueBy}; a reminder goes out at ${new Date(remindAt).toISOString()}`);
      if (!(await condition(woken, remindAt - Date.now()))) {
        this.adopt(await steps.remindEvidenceDue(this.id));
        this.remindedFor = dueBy;
      }
      return;
    }
    if (this.acquirerDecides) {
      // The acquirer closes it when nothing came by its deadline, and says so as its own event.
      setCurrentDetails(`Needs a response: evidence due by ${dueBy}; the acquirer decides what happens at the deadline`);
      await condition(woken);
      return;
    }
    setCurrentDetails(`Needs a response: evidence due by ${dueBy}; without it the dispute is lost (an inquiry closes)`);
    const wait = Math.max(Date.parse(dueBy) - Date.now(), this.expiryAskedFor === dueBy ? MIN_RECHECK_MS : 0);
    if (wait <= 0 || !(await condition(woken, wait))) {
      this.expiryAskedFor = dueBy;
      this.adopt(await steps.expireDispute(this.id));
    }
  }

  /** Under review: the network reviews the evidence a review period after it came; then the acquirer decides. */
  private async awaitReview(submittedAt: string, woken: () => boolean): Promise<void> {
    if (this.acquirerDecides) {
      if (this.sentFor !== submittedAt) {
        setCurrentDetails(`Sending the evidence submitted at ${submittedAt} to the acquirer`);
        await this.atAcquirer('the evidence', acquirerCalls.submitEvidenceToAcquirer(this.id));
        this.sentFor = submittedAt;
        return;
      }
      setCurrentDetails(`Under review: evidence sent to the acquirer, whose decision arrives as its own event (or npm run admin -- dispute decide ${this.id})`);
      await condition(woken);
      return;
    }
    if (this.reviewedFor === submittedAt) {
      setCurrentDetails(`Under review: waiting for the acquirer's decision (npm run admin -- dispute decide ${this.id} --outcome won|lost)`);
      await condition(woken);
      return;
    }
    const reviewAt = Date.parse(submittedAt) + this.input.reviewPeriodMs;
    setCurrentDetails(`Under review since ${submittedAt}: the network reviews the evidence at ${new Date(reviewAt).toISOString()}`);
    const wait = reviewAt - Date.now();
    if (wait <= 0 || !(await condition(woken, wait))) {
      this.reviewedFor = submittedAt;
      this.adopt(await steps.reviewEvidence(this.id, this.input.responseWindowMs));
    }
  }
}

/** A decision as sent: the named one, or the bare outcome runs begun before `NAMED_MESSAGES_PATCH` were sent. */
function decisionOf(decision: DisputeDecision | Outcome): { disputeId: string | null; outcome: Outcome } {
  if (typeof decision === 'string') return { disputeId: null, outcome: decision };
  return { disputeId: typeof decision?.disputeId === 'string' ? decision.disputeId : null, outcome: decision?.outcome };
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
