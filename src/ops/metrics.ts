import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus metrics, one registry per process, served on the ops port's `/metrics`.
 * Modules count their outcomes through the small helpers at the bottom, so metric names and label
 * values are decided here, once.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'API request latency, by route template and status code',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const paymentsTotal = new Counter({
  name: 'payments_total',
  help: 'Card payments that reached a final state, by outcome (succeeded, failed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const paymentsSettledTotal = new Counter({
  name: 'payments_settled_total',
  help: 'Payments in doubt (processing, with no pay running them) that their checkout workflow settled, by outcome (completed, failed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const payAnswersInDoubtTotal = new Counter({
  name: 'pay_answers_in_doubt_total',
  help: 'Pay calls whose database could not say what came of the payment when they answered, by the answer given (a status, not_payable, retry)',
  labelNames: ['answer'] as const,
  registers: [registry],
});

/** Where a pay call's time goes, so a slow "Pay" names its cause: this process's own work, Temporal, or the database after. */
const payCallPhase = new Histogram({
  name: 'pay_call_phase_seconds',
  help: "A pay call's time by phase: session (its read and checks, and the body's), token (the card's token), workflow (Temporal's round trip: the update and the payment's steps), answer (what the call reads or writes after it)",
  labelNames: ['phase'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

const acquirerEventsTotal = new Counter({
  name: 'acquirer_events_total',
  help: "Verified events a real acquirer's webhook delivered, by acquirer, type and outcome (applied, unchanged, duplicate, ignored, unmatched, refused, disagrees); unmatched, refused and disagrees are alerts",
  labelNames: ['acquirer', 'type', 'outcome'] as const,
  registers: [registry],
});

const acquirerEventsUnverifiedTotal = new Counter({
  name: 'acquirer_events_unverified_total',
  help: "Deliveries at a real acquirer's webhook that did not verify and were refused (400), by acquirer and reason (no_signature, malformed_signature, signature_mismatch, timestamp_too_old, timestamp_in_future, body_not_json); a steady signature_mismatch is a wrong webhook secret",
  labelNames: ['acquirer', 'reason'] as const,
  registers: [registry],
});

const refundsTotal = new Counter({
  name: 'refunds_total',
  help: 'Refunds, by outcome (created, completed, failed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const withdrawalsTotal = new Counter({
  name: 'withdrawals_total',
  help: 'Withdrawals, by outcome (requested, completed, failed, cancelled)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const webhookAttemptsTotal = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook HTTP delivery attempts, by outcome (delivered, failed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const webhookDeliveriesTotal = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook deliveries that reached a final state, by outcome (delivered, failed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const workflowFailuresTotal = new Counter({
  name: 'workflow_failures_total',
  help: 'Workflows that ended in failure, by workflow type (see also the SDK metric temporal_workflow_failed)',
  labelNames: ['workflow_type'] as const,
  registers: [registry],
});

/** The request-body intake of this process (src/http/intake-budget.ts), read when /metrics is scraped. */
let intake: { held: () => number; peak: () => number; clients: () => number } | undefined;

new Gauge({
  name: 'http_request_body_bytes_held',
  help: 'Request-body bytes this process holds now, counted as they arrive (bounded by BODY_BYTES_IN_FLIGHT)',
  registers: [registry],
  collect() {
    this.set(intake?.held() ?? 0);
  },
});

new Gauge({
  name: 'http_request_body_bytes_held_peak',
  help: 'The most request-body bytes this process has held at once since it started',
  registers: [registry],
  collect() {
    this.set(intake?.peak() ?? 0);
  },
});

new Gauge({
  name: 'http_request_body_clients',
  help: 'Client addresses with a request body open or held now',
  registers: [registry],
  collect() {
    this.set(intake?.clients() ?? 0);
  },
});

const answersWaiting = new Gauge({
  name: 'http_answers_waiting',
  help: 'Answers written and not yet taken by their client (what the socket cannot hold waits in memory), each for at most SEND_TIMEOUT',
  registers: [registry],
});

const answersCut = new Counter({
  name: 'http_answers_cut_total',
  help: 'Answers their client did not take within SEND_TIMEOUT: the connection was cut and the answer dropped',
  registers: [registry],
});

/** The API's intake, once per process (the app that serves it). */
export function reportIntake(budget: NonNullable<typeof intake>): void {
  intake = budget;
}

/** What other modules call; each is one line at the place the outcome becomes final. */
export const metrics = {
  payment: (outcome: 'succeeded' | 'failed') => paymentsTotal.inc({ outcome }),
  paymentSettled: (outcome: 'completed' | 'failed') => paymentsSettledTotal.inc({ outcome }),
  payAnswerInDoubt: (answer: string) => payAnswersInDoubtTotal.inc({ answer }),
  /** One phase of a pay call ended: `since` is `performance.now()` at its start; answers now, for the next phase's start. */
  payPhase: (phase: 'session' | 'token' | 'workflow' | 'answer', since: number): number => {
    const now = performance.now();
    payCallPhase.observe({ phase }, (now - since) / 1000);
    return now;
  },
  acquirerEvent: (acquirer: string, type: string, outcome: string) => acquirerEventsTotal.inc({ acquirer, type, outcome }),
  acquirerEventUnverified: (acquirer: string, reason: string) => acquirerEventsUnverifiedTotal.inc({ acquirer, reason }),
  refund: (outcome: 'created' | 'completed' | 'failed') => refundsTotal.inc({ outcome }),
  withdrawal: (outcome: 'requested' | 'completed' | 'failed' | 'cancelled') => withdrawalsTotal.inc({ outcome }),
  webhookAttempt: (outcome: 'delivered' | 'failed') => webhookAttemptsTotal.inc({ outcome }),
  webhookDelivery: (outcome: 'delivered' | 'failed') => webhookDeliveriesTotal.inc({ outcome }),
  workflowFailure: (workflowType: string) => workflowFailuresTotal.inc({ workflow_type: workflowType }),
  /** An answer written (`+1`) or taken or dropped (`-1`): see `http_answers_waiting`. */
  answerWaiting: (delta: 1 | -1) => answersWaiting.inc(delta),
  answerCut: () => answersCut.inc(),
};
