import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import type { Logger } from 'pino';
import type { DisputeTimes } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import { metrics } from '../../ops/metrics.js';
import { sessionOfChargeReference } from '../checkout/index.js';
import { AcquirerReportConflict, applyAcquirerReport, disputeChanged, disputeWorkflowStart } from '../disputes/index.js';
import { isClosed } from '../../../contracts/disputes.js';
import { claimForFastPath, OutboxEntry } from '../outbox/index.js';
import { parse } from '../../domain/validation.js';
import { stripeDisputeShape, stripeIntentShape, stripeRefundShape } from './stripe-events.schemas.js';
import { applyIntentEvent, isStripeIntentEvent } from './stripe-intent-events.service.js';
import { isStripeRefundEvent } from './stripe-refunds.rules.js';
import { applyRefundEvent } from './stripe-refund-events.service.js';
import type { EventOutcome, ReceivedEvent } from './stripe-event.outcome.js';
import { isStripeDisputeEvent, paymentIntentOf, reasonOf, stageOf, type StripeDisputeEvent } from './stripe-disputes.rules.js';

/**
 * What an event Stripe delivered does, once its signature has verified (stripe-events.routes.ts). Every
 * event is recorded (`acquirer_events`, keyed by its id) in the transaction of what it does, so a second
 * delivery of it finds it and does nothing, and a failure records nothing (Stripe sends it again). Its
 * `charge.dispute.*` events feed the dispute workflow the simulator's notices feed: each carries the whole
 * dispute, which is applied forward only (an event older than what is known moves nothing), so their
 * order does not matter. Its refund events (`refund.failed`, `charge.refund.updated`) fail a completed
 * refund that Stripe failed later (stripe-refund-events.service.ts). Its `payment_intent.succeeded` and
 * `payment_intent.payment_failed` hand a payment confirmed in the browser to its checkout workflow
 * (stripe-intent-events.service.ts). An event for a charge this service never made, or one it cannot apply, is
 * recorded and alerted (an error log line and `acquirer_events_total`), and acknowledged: Stripe sending it
 * again for days would not make it apply.
 */


export interface StripeEventDeps {
  disputes: DisputeTimes;
}

const ALERTS: readonly EventOutcome[] = ['unmatched', 'refused', 'disagrees'];

/** The status a dispute Stripe says is closed has here, when the two agree. */
const CLOSED_AS = { won: 'won', lost: 'lost', inquiry_closed: 'warning_closed' } as const;

/** In the caller's transaction: records the verified event and applies it. The caller reports it after commit (`reportStripeEvent`). */
export async function receiveStripeEvent(tx: EntityManager, event: Stripe.Event, deps: StripeEventDeps, at: Date = new Date()): Promise<ReceivedEvent> {
  const object = event.data.object as { id?: string };
  const recorded = await tx.execute<{ id: string }[]>(
    `insert into acquirer_events (acquirer, id, type, livemode, object_id, event_created_at, received_at, outcome, payload)
     values ('stripe', ?, ?, ?, ?, to_timestamp(?), ?, 'received', ?) on conflict (acquirer, id) do nothing returning id`,
    [event.id, event.type, event.livemode, object.id ?? null, event.created, at, JSON.stringify(event)],
  );
  if (!recorded.length) return { outcome: 'duplicate', disputeId: null, detail: null, outbox: [] };
  const result = isStripeDisputeEvent(event.type)
    ? await applyDisputeEvent(tx, event.type, parse(stripeDisputeShape, event.data.object) as unknown as Stripe.Dispute, deps, at)
    : isStripeRefundEvent(event.type)
      ? await applyRefundEvent(tx, parse(stripeRefundShape, event.data.object) as unknown as Stripe.Refund)
      : isStripeIntentEvent(event.type)
        ? await applyIntentEvent(tx, parse(stripeIntentShape, event.data.object) as unknown as Stripe.PaymentIntent, at)
        : { outcome: 'ignored' as const, disputeId: null, detail: `${event.type} is not an event this service takes`, outbox: [] };
  await tx.flush(); // the dispute this event opened, before the event's row names it
  await tx.execute(`update acquirer_events set outcome = ?, detail = ?, dispute_id = ? where acquirer = 'stripe' and id = ?`, [
    result.outcome,
    result.detail,
    result.disputeId,
    event.id,
  ]);
  return result;
}

async function applyDisputeEvent(tx: EntityManager, type: StripeDisputeEvent, dispute: Stripe.Dispute, deps: StripeEventDeps, at: Date): Promise<ReceivedEvent> {
  const intent = paymentIntentOf(dispute);
  const sessionId = intent ? await sessionOfChargeReference(tx, intent) : null;
  if (!sessionId) {
    const detail = `dispute ${dispute.id} names ${intent ? `PaymentIntent ${intent}` : 'no PaymentIntent'}, which no payment of this service made`;
    return { outcome: 'unmatched', disputeId: null, detail, outbox: [] };
  }
  const stage = stageOf(type, dispute.status);
  try {
    const applied = await applyAcquirerReport(
      tx,
      {
        acquirer: 'stripe',
        acquirerDisputeId: dispute.id,
        acquirerStatus: dispute.status,
        checkoutSessionId: sessionId,
        reason: reasonOf(dispute.reason),
        amountInCents: dispute.amount,
        evidenceDueBy: dispute.evidence_details?.due_by ? new Date(dispute.evidence_details.due_by * 1000) : null,
        stage,
      },
      { responseWindowMs: deps.disputes.responseWindowMs },
      at,
    );
    const { dispute: ours, opened, changed } = applied;
    const outbox: OutboxEntry[] = [];
    if (opened) {
      const context = { businessId: ours.businessId, livemode: ours.livemode, amountInCents: ours.amountInCents, times: deps.disputes, noticeDelayMs: 0, opened: ours };
      outbox.push(claimForFastPath(tx.create(OutboxEntry, { createdAt: at, message: disputeWorkflowStart(opened, context) })));
    } else if (changed) {
      outbox.push(claimForFastPath(tx.create(OutboxEntry, { createdAt: at, message: disputeChanged(ours) })));
    }
    const detail = `${dispute.id} is ${dispute.status} at Stripe; ${ours.id} is ${ours.status}`;
    // Closed here one way (the merchant accepted, an operator decided) and at Stripe another: the money here
    // follows this service's outcome, Stripe's follows Stripe's, and only a person can reconcile the two.
    const closedAs = stage in CLOSED_AS ? CLOSED_AS[stage as keyof typeof CLOSED_AS] : null;
    if (!changed && closedAs && isClosed(ours.status) && ours.status !== closedAs) return { outcome: 'disagrees', disputeId: ours.id, detail, outbox };
    return { outcome: changed ? 'applied' : 'unchanged', disputeId: ours.id, detail, outbox };
  } catch (err) {
    // What a notice is refused for (the session refunded, not paid, an amount above its total), or another dispute of the session.
    if (!(err instanceof DomainError) && !(err instanceof AcquirerReportConflict)) throw err;
    return { outcome: 'refused', disputeId: null, detail: `dispute ${dispute.id} of session ${sessionId} cannot be applied: ${err instanceof DomainError ? err.code : err.message}`, outbox: [] };
  }
}

/**
 * Counts and logs what an event came to, once its transaction has committed: a rolled-back event (the
 * database lost mid-way; Stripe sends it again) was not received, and counting it would say it was.
 */
export function reportStripeEvent(event: Stripe.Event, log: Logger, result: ReceivedEvent): void {
  metrics.acquirerEvent('stripe', event.type, result.outcome);
  if (result.refundFailed) metrics.refund('failed');
  const fields = { acquirer: 'stripe', eventId: event.id, type: event.type, outcome: result.outcome, disputeId: result.disputeId };
  if (ALERTS.includes(result.outcome)) log.error(fields, `Stripe event ${event.id} (${event.type}) ${result.outcome}: ${result.detail}`);
  else log.info(fields, `Stripe event ${event.id} (${event.type}) ${result.outcome}`);
}
