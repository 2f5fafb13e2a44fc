import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { workflowContract } from './workflows.js';

/**
 * A dispute's statuses and what each means for its process: shared by the service's rules and the
 * dispute workflow, which keeps the clocks each status needs. `warning_*` is an inquiry (no money
 * moves); the rest a chargeback.
 */
export const DISPUTE_STATUSES = [
  'warning_needs_response',
  'warning_under_review',
  'warning_closed',
  'needs_response',
  'under_review',
  'won',
  'lost',
] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** Why the cardholder disputes the payment, in the card networks' words (as Stripe names them). */
export const DISPUTE_REASONS = [
  'fraudulent',
  'product_not_received',
  'product_unacceptable',
  'duplicate',
  'credit_not_processed',
  'subscription_canceled',
  'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

export const isInquiry = (status: DisputeStatus): boolean => status.startsWith('warning_');
export const isClosed = (status: DisputeStatus): boolean => status === 'won' || status === 'lost' || status === 'warning_closed';
/** Waiting for the merchant's evidence, until `evidenceDueBy`. */
export const awaitsResponse = (status: DisputeStatus): boolean => status === 'needs_response' || status === 'warning_needs_response';
/** Evidence submitted: the network (or an operator entering the acquirer's word) decides. */
export const isUnderReview = (status: DisputeStatus): boolean => status === 'under_review' || status === 'warning_under_review';

/**
 * How far along a dispute is. Every move goes forward in this order (an inquiry's review can escalate it
 * to a chargeback that needs a response), so of two reports of a dispute the further one is the newer,
 * whatever the clocks of the hosts that wrote them.
 */
const STAGE: Record<DisputeStatus, number> = {
  warning_needs_response: 0,
  warning_under_review: 1,
  needs_response: 2,
  under_review: 3,
  warning_closed: 4,
  won: 4,
  lost: 4,
};
export const stageOf = (status: DisputeStatus): number => STAGE[status];

/** A decision on a dispute: the network's, or the acquirer's as an operator enters it. */
export type Outcome = 'won' | 'lost';

/** What the acquirer reports about a charge it will dispute: a chargeback or an inquiry, and why. */
export interface AcquirerDisputeNotice {
  reason: DisputeReason;
  inquiry: boolean;
}

/** What the acquirer reported, as a dispute's workflow starts from it. The dispute's id is chosen with the notice, so a second delivery of it opens nothing. */
export interface DisputeNotice extends AcquirerDisputeNotice {
  disputeId: string;
  checkoutSessionId: string;
  /** The disputed amount when the notice gives one below the session's total; null: the total. */
  amountInCents: number | null;
}

/** What the dispute workflow knows of its dispute: enough to keep its clocks, nothing personal. */
export interface DisputeProgress {
  id: string;
  status: DisputeStatus;
  evidenceDueBy: string;
  submittedAt: string | null;
  updatedAt: string;
}

/** The dispute workflow's contract: its start input, messages and query (workflows/disputes.ts runs it). */
export interface DisputeWorkflowInput {
  notice: DisputeNotice;
  /** How long after the start the notice arrives: the simulated acquirer's few seconds; 0 for one an operator entered. */
  noticeDelayMs: number;
  /** DISPUTE_RESPONSE_WINDOW and DISPUTE_REVIEW_PERIOD at the notice: in the input, so every replay waits the same. */
  responseWindowMs: number;
  reviewPeriodMs: number;
  /**
   * The real acquirer that reported the dispute (`stripe`), absent for the simulator's and an operator's.
   * Its dispute is the acquirer's to decide: the merchant's evidence is sent to it, and the outcome comes
   * as its own event (through the `disputeChanged` signal), not from this workflow's clocks.
   */
  acquirer?: string;
}

/** How the dispute ended, or `reversed`: the notice opened nothing (the session refunded, or disputed already). */
export type DisputeWorkflowResult = DisputeProgress['status'] | 'reversed';

/**
 * Sent through the outbox once a merchant's submission or acceptance has committed: the dispute as it then
 * was, named by its `id`, which the workflow checks is its own.
 */
export const disputeChangedSignal = defineSignal<[progress: DisputeProgress]>('disputeChanged');
/** The acquirer's decision on one dispute, named by its id (a payload copied from another dispute's history is refused). */
export interface DisputeDecision {
  disputeId: string;
  outcome: Outcome;
}
/** The acquirer's decision, entered by an operator (`npm run admin -- dispute decide`); answers the dispute after it (null: no dispute opened). */
export const decideDisputeUpdate = defineUpdate<DisputeProgress | null, [decision: DisputeDecision]>('decide');
export const disputeProgressQuery = defineQuery<DisputeProgress | null>('status');

export const disputeWorkflowContract = workflowContract<(input: DisputeWorkflowInput) => Promise<DisputeWorkflowResult>>('disputeWorkflow');
