import type { MikroORM } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { answerOfResult, confirmationAnswer, payVerdict, type PayAnswer, type PayHeard } from './pay-answer.rules.js';
import { answerInDoubt, IN_DOUBT_HOLD_MS } from './pay-in-doubt.service.js';
import { askWorkflowToPay, outcomeById, updateAccepted, type AttemptRequest } from './pay.transport.js';
import { failpoint } from '../../ops/failpoints.js';
import { isUnavailable } from '../../ops/unavailable.js';
import { metrics } from '../../ops/metrics.js';
import type { LivePayments } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import {
  requireLivePayments,
  INVALID_CARD_NUMBER,
  parseCard,
  InvalidCardError,
  ProcessorUnavailableError,
  type CardToken,
  type PaymentProcessor,
} from '../processor/index.js';
import type { PayInBrowserInput, PayInput } from './pay.schemas.js';
import { paymentRedirectUrl } from './redirect.rules.js';
import { expireSession, isPastExpiry } from './expiry.rules.js';
import { refuseAttempt } from './payment.lifecycle.js';
import { behindPayAhead, loadSession, sessionAfter, sessionLeaving } from './pay-session.queries.js';
import { settleIfInDoubtMessage } from './payment.start.js';
import { OutboxEntry } from '../outbox/index.js';
import type { CheckoutSession } from './session.entity.js';

export interface PayDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  processor: PaymentProcessor;
  /** How long the request waits for the payment's outcome before answering `processing`. */
  waitMs: number;
  /** `refused`: a live session cannot be paid here (src/modules/processor/live-mode.rules.ts). The route passes the config's. */
  livePayments?: LivePayments;
  /** Who takes a payment in each mode (`simulator`, `stripe`), for the Temporal UI's summary of the checkout workflow. */
  acquirerOf?: (livemode: boolean) => string;
  /** Where a pay answered without its database is told (pay-in-doubt.service.ts). */
  log?: Logger;
  /** The session's hosted page: a payment confirmed in the browser comes back to it (`return_url`). */
  pageUrlOf?: (sessionId: string) => string;
}

/**
 * Whether the session's card is collected and its charge confirmed in the customer's browser (Stripe.js),
 * never reaching this service: live mode served by the acquirer. Test mode, and live mode simulated, keep
 * the page's own card form and the simulator.
 */
export const confirmsInBrowser = (livePayments: LivePayments | undefined, session: { livemode: boolean }) => session.livemode && livePayments === 'acquirer';


/**
 * The session a pay call names, if it can be paid: known, still `pending`, and in a mode this server pays.
 * The route asks this before it reads the body: an unknown session, then one that cannot be paid, come
 * before anything about the body (docs/decisions.md, Order of pay checks).
 */
export async function payableSession(deps: PayDeps, sessionId: string): Promise<CheckoutSession> {
  const session = await loadSession(deps, sessionId);
  // Past its `expiresAt` it is cancelled now, whether or not the expiry sweep has come by yet.
  const statusNow = isPastExpiry(session) ? await expireSession(deps.orm.em.fork(), session.id) : session.status;
  if (statusNow !== 'pending') throw new DomainError('session_not_payable', { params: { status: statusNow ?? 'cancelled' } });
  // Live mode fails closed: the card reaches neither the simulator's tokenizer nor its charge.
  requireLivePayments(deps.livePayments ?? 'simulated', session.livemode);
  return session;
}

/**
 * Pays a payable session from the hosted page. The card becomes a token here, in the request; the payment
 * itself runs in the session's checkout workflow (started if it is not running yet), which finishes even if
 * this process dies. The request waits a bounded time for the outcome, then answers what the database says:
 * the outcome the workflow answered for this call's own payment is the status its last step committed;
 * anything else is read in the database before the answer, so an answer never contradicts a move this call made.
 */
export async function payCheckout(deps: PayDeps, session: CheckoutSession, input: PayInput | PayInBrowserInput, started = performance.now()): Promise<PayAnswer> {
  if (session.askShipping && !input.shipping) {
    throw new DomainError('validation_failed', { errors: [{ path: ['shipping'], message: 'Shipping address is required' }] });
  }
  // In the browser's mode the body has no card (its schema refuses one): the page confirms at the acquirer.
  const card = 'card' in input ? await tokenize(deps.processor, input.card, session.livemode) : null;
  const tokenized = metrics.payPhase('token', started);
  const browser = card ? undefined : { returnUrl: deps.pageUrlOf?.(session.id) ?? `/checkout/${session.id}` };
  // This call's name for its payment attempt (and its update's id): the database records it if this call pays.
  const request = { ...payRequest(randomUUID(), card, input, session), ...(browser ? { browser } : {}) };
  const deadline = Date.now() + deps.waitMs;
  // One bound for every wait past the deadline, whichever path the call takes: a checkout page waits 30 s.
  const holdUntil = deadline + IN_DOUBT_HOLD_MS;
  const acquirer = deps.acquirerOf?.(session.livemode) ?? 'simulator';
  const heard = await askWorkflowToPay(deps.temporal, deps.taskQueue, session, request, deadline, acquirer);
  const answering = metrics.payPhase('workflow', tokenized);
  await failpoint('pay.before-answer', session.id);
  try {
    return await answerFromDatabase(deps, session, request.attemptId, heard, deadline, holdUntil);
  } catch (err) {
    // The database went away before it could say what came of the payment, or before the fence a 503 needs
    // was written: a generic 503 here could be followed by this attempt's charge. See pay-in-doubt.service.ts.
    if (!isUnavailable(err)) throw err;
    return answerInDoubt({ ...deps, acquirer }, session, request, holdUntil, (heardNow, by) => answerFromDatabase(deps, session, request.attemptId, heardNow, by, holdUntil));
  } finally {
    metrics.payPhase('answer', answering);
  }
}

/**
 * The answer as the database has it after the call, read before any answer so that no answer contradicts a
 * move this call made. Throws what the database's own failure threw when it cannot be read or written.
 */
async function answerFromDatabase(deps: PayDeps, session: CheckoutSession, attemptId: string, heardFirst: PayHeard, deadline: number, holdUntil: number): Promise<PayAnswer> {
  let heard = heardFirst;
  // The workflow answered this call's own payment with the status its last step committed (completed or
  // failed): the database has just said it, in the step's own transaction, so it is not asked again.
  if (endedOwnPayment(heard)) return answerOfResult(session, heard);
  let current = await sessionAfter(deps, session, heard);
  if (!current) return answerOfResult(session, heard);
  // Opened for the browser to confirm, and the database shows this call's attempt under way: the page gets
  // the secret at once (it has nothing to wait for here; the outcome comes from the acquirer, later).
  if (heard.kind === 'answered' && heard.result.outcome === 'confirm' && current.paymentAttemptId === attemptId && current.status === 'processing') {
    return confirmationAnswer(current.id, heard.result);
  }
  // Unanswered and nothing moved: `processing` is true only if the update is in the workflow's history
  // (accepted), where no restart of the server can lose it; one merely admitted is fenced off below instead,
  // once the server has held it unaccepted for the hold (a worker slow to take its task accepts it late).
  if (heard.kind === 'no_answer' && current.status === 'pending') {
    heard = (await updateAccepted(deps.temporal, session.id, attemptId, holdUntil)) ? { kind: 'accepted' } : { kind: 'refused' };
  }
  // The database shows this call's payment under way, and no outcome of it was heard: Temporal's answer was
  // lost (an error reached this call after the workflow had accepted its update), or the update was answered
  // by a run that had not yet heard of the attempt, which it then resumed (workflows/checkout.ts, `settle`).
  // Its outcome is read in the database, by the same deadline.
  const ownOutcome = (s: CheckoutSession) => (s.paymentAttemptId === attemptId && s.status === 'processing' ? sessionLeaving('processing', deps, session.id, deadline) : s);
  current = await ownOutcome(current);
  // Refused by the run behind another pay that has not moved the session yet: that one moves it, and this
  // call is told the status it moved to. One that never does was fenced off by its own call, and runs to
  // nothing: then this attempt, which never runs either, is told to retry (payVerdict).
  if (heard.kind === 'answered' && heard.result.outcome === 'not_payable' && current.status === 'pending') {
    current = await behindPayAhead(deps, session.id, heard.result.behind, deadline, holdUntil);
  }
  let verdict = payVerdict(current, attemptId, heard);
  // "Retry" is true only once nothing of this attempt can be charged later: the attempt is refused on the
  // session first. If its payment (or another) moved the session before that, the session says what came of it.
  if (verdict.answer === 'retry' && !(await refuseAttempt(deps.orm.em.fork(), session.id, attemptId))) {
    current = await ownOutcome(await loadSession(deps, session.id));
    verdict = payVerdict(current, attemptId, heard);
  }
  if (verdict.answer === 'not_payable') throw new DomainError('session_not_payable', { params: { status: verdict.status } });
  if (verdict.answer === 'retry') throw new DomainError('service_unavailable');
  // Told `processing` for its own attempt with no outcome heard: through the outbox, so that it outlives this
  // process and a Temporal outage, the run is asked to settle the payment if its update was lost. Written
  // before any wait below, so that a process dying in it loses nothing; a run still paying ignores it.
  if (verdict.status === 'processing' && current.paymentAttemptId === attemptId && heard.kind !== 'answered') {
    await deps.orm.em.fork().transactional(async (tx) => void tx.create(OutboxEntry, { message: settleIfInDoubtMessage(session.id) }));
  }
  // Opened for the browser to confirm, its secret not in by the deadline (an acquirer or a worker slow to open
  // the charge): without it the page has no card form to show, and the customer could only wait for the
  // session to expire. So the call waits for its update's answer, until its one bound for every wait, and
  // answers whatever it turns out to be (the secret, or the payment's end) as an answer heard in time is.
  if (verdict.status === 'processing' && heard.kind !== 'answered' && confirmsInBrowser(deps.livePayments, session)) {
    const late = await outcomeById(deps.temporal, session.id, attemptId, holdUntil);
    if (late.kind === 'answered') return answerFromDatabase(deps, session, attemptId, late, deadline, holdUntil);
  }
  return { sessionId: current.id, status: verdict.status, redirectUrl: paymentRedirectUrl(current) };
}

/** Whether the workflow's answer is this attempt's own payment ended, with the status the database committed. */
const endedOwnPayment = (heard: PayHeard) =>
  heard.kind === 'answered' && (heard.result.outcome === 'completed' || heard.result.outcome === 'failed') && heard.result.status === heard.result.outcome;

/**
 * The card as a token. A number that fails Luhn is refused here, the one place the card is checked, before
 * any processor sees it (after the body and shipping: docs/decisions.md, Order of pay checks); a card the
 * acquirer refuses is the same validation error on its field, and an acquirer that cannot be reached a 503
 * the customer may retry (nothing was charged: no session moved).
 */
async function tokenize(processor: PaymentProcessor, details: PayInput['card'], livemode: boolean): Promise<CardToken> {
  const card = parseCard(details);
  if (!card) throw cardRefused('number', INVALID_CARD_NUMBER);
  try {
    return await processor.tokenize(card, livemode);
  } catch (err) {
    if (err instanceof ProcessorUnavailableError) throw new DomainError('service_unavailable');
    if (!(err instanceof InvalidCardError)) throw err;
    throw cardRefused(err.field, err.message);
  }
}

const cardRefused = (field: InvalidCardError['field'], message: string) =>
  new DomainError('validation_failed', { errors: [{ path: ['card', field], message }] });

/** What the workflow is asked: the token and who pays, never the card itself. */
function payRequest(attemptId: string, card: CardToken | null, input: PayInput | PayInBrowserInput, session: CheckoutSession): AttemptRequest {
  return {
    sessionId: session.id,
    attemptId,
    token: card?.token ?? '',
    cardBrand: card?.brand ?? null,
    cardLast4: card?.last4 ?? null,
    customerName: input.name,
    customerEmail: input.email ?? null,
    shipping: session.askShipping && input.shipping ? { ...input.shipping, addressLine2: input.shipping.addressLine2 ?? null } : null,
  };
}
