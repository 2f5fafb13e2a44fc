import type { MikroORM } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowUpdateStage, type Client } from '@temporalio/client';
import { z } from 'zod';
import { checkoutWorkflow, payUpdate, type PayRequest, type PayResult } from '../../../workflows/checkout.js';
import { payVerdict, type PayHeard } from './pay-answer.rules.js';
import { toSearchAttributePairs } from '../../../contracts/search-attributes.js';
import { centsToDecimalString } from '../../domain/money.js';
import type { LivePayments } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import { requireLivePayments } from '../processor/live-mode.rules.js';
import { InvalidCardError, type CardToken, type PaymentProcessor } from '../processor/processor.port.js';
import type { payAnswerResource, PayInput } from './pay.schemas.js';
import { paymentRedirectUrl } from './redirect.rules.js';
import { expireSession, isPastExpiry } from './expiry.rules.js';
import { CheckoutSession } from './session.entity.js';
import { checkoutWorkflowId } from '../../../contracts/workflow-ids.js';

export interface PayDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  processor: PaymentProcessor;
  /** How long the request waits for the payment's outcome before answering `processing`. */
  waitMs: number;
  /** `refused`: a live session cannot be paid here (src/modules/processor/live-mode.rules.ts). The route passes the config's. */
  livePayments?: LivePayments;
}

export type PayAnswer = z.output<typeof payAnswerResource>;

const UUID = z.uuid();

async function loadSession(deps: PayDeps, sessionId: string): Promise<CheckoutSession> {
  const session = UUID.safeParse(sessionId).success ? await deps.orm.em.fork().findOne(CheckoutSession, { id: sessionId }) : null;
  if (!session) throw new DomainError('session_not_found');
  return session;
}

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
 * this process dies. The request waits a bounded time for the outcome, then answers what the database says.
 */
export async function payCheckout(deps: PayDeps, session: CheckoutSession, input: PayInput): Promise<PayAnswer> {
  if (session.askShipping && !input.shipping) {
    throw new DomainError('validation_failed', { errors: [{ path: ['shipping'], message: 'Shipping address is required' }] });
  }
  const card = await tokenize(deps.processor, input.card);
  // This call's name for its payment attempt: the database records it if this call is the one that pays.
  const attemptId = randomUUID();
  const deadline = Date.now() + deps.waitMs;
  const heard = await askWorkflowToPay(deps, session, payRequest(attemptId, card, input, session));
  if (heard.kind === 'no_answer') await ensureTemporalReachable(deps.temporal);
  // The database has the answer: whether this call paid, and if not, why the session cannot be paid.
  let current = await loadSession(deps, session.id);
  // Temporal's answer was lost (an error reached this call after the workflow had accepted its update), and
  // the database shows this call's payment under way: its outcome is read there, by the same deadline.
  if (heard.kind === 'refused' && current.paymentAttemptId === attemptId && current.status === 'processing') {
    current = await paymentEndedBy(deps, session.id, deadline);
  }
  const verdict = payVerdict(current, attemptId, heard);
  if (verdict.answer === 'not_payable') throw new DomainError('session_not_payable', { params: { status: verdict.status } });
  if (verdict.answer === 'retry') throw new DomainError('service_unavailable');
  return { sessionId: current.id, status: verdict.status, redirectUrl: paymentRedirectUrl(current) };
}

/** The card as a token; a card the processor refuses to tokenize is a validation error on its field. */
async function tokenize(processor: PaymentProcessor, card: PayInput['card']): Promise<CardToken> {
  try {
    return await processor.tokenize(card);
  } catch (err) {
    if (!(err instanceof InvalidCardError)) throw err;
    throw new DomainError('validation_failed', { errors: [{ path: ['card', err.field], message: err.message }] });
  }
}

/** What the workflow is asked: the token and who pays, never the card itself. */
function payRequest(attemptId: string, card: CardToken, input: PayInput, session: CheckoutSession): PayRequest {
  return {
    attemptId,
    token: card.token,
    cardBrand: card.brand,
    cardLast4: card.last4,
    customerName: input.name,
    customerEmail: input.email ?? null,
    shipping: session.askShipping && input.shipping ? { ...input.shipping, addressLine2: input.shipping.addressLine2 ?? null } : null,
  };
}

/**
 * The `pay` Update of the session's checkout workflow, started with it if needed, and what was heard by
 * the deadline. The wait covers admission too: with no worker up, the update is never accepted and the
 * customer is told `processing` rather than left hanging. A late failure after the deadline is nobody's to handle.
 */
async function askWorkflowToPay(deps: PayDeps, session: CheckoutSession, request: PayRequest): Promise<PayHeard> {
  const outcome = deps.temporal.workflow
    .startUpdateWithStart(payUpdate, { args: [request], waitForStage: WorkflowUpdateStage.ACCEPTED, startWorkflowOperation: checkoutStart(session, deps.taskQueue) })
    .then((update) => update.result());
  outcome.catch(() => undefined);
  return Promise.race([outcome, wait(deps.waitMs)]).then(
    (result): PayHeard => (result ? { kind: 'answered', result } : { kind: 'no_answer' }),
    // Whatever Temporal answered instead of a result (the update failed or was refused, the closed workflow
    // could not be started again, too many updates in flight, a start deduplicated into a closed run), the
    // database says whether this call paid.
    (): PayHeard => ({ kind: 'refused' }),
  );
}

/** The session's checkout workflow, by reference as every start: the compiler checks `args` against its parameters. */
function checkoutStart(session: CheckoutSession, taskQueue: string) {
  return new WithStartWorkflowOperation(checkoutWorkflow, {
    workflowId: checkoutWorkflowId(session.id),
    taskQueue,
    args: [{ sessionId: session.id, expiresAt: session.expiresAt.toISOString() }],
    // The first pay starts the session's workflow; a second one (a retry, another tab) finds it running.
    workflowIdConflictPolicy: 'USE_EXISTING',
    // Once the workflow has closed, the session's payment is over: a late call (or the client's own resend
    // of an update whose acceptance it did not hear) must not start a second run that answers for the
    // first. Only a run that failed or was terminated may be followed by a new one.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    staticSummary: `Checkout ${session.id} of $${centsToDecimalString(session.total)}`,
    typedSearchAttributes: toSearchAttributePairs({
      BusinessId: session.businessId,
      Livemode: session.livemode,
      PaymentStatus: session.status,
      AmountInCents: session.total,
    }),
  });
}

/** How long the check after the deadline gives Temporal to answer. */
const REACHABLE_CHECK_MS = 2_000;

/**
 * Nothing by the deadline. With Temporal reachable, the payment is waiting for a worker or still
 * running, and `processing` is the truth. With Temporal unreachable, the update may never have been
 * admitted (its client call is still retrying), and one admitted but not yet accepted does not survive
 * a server restart: `processing` would promise a payment that may never happen, so the customer is told
 * to retry. A retry cannot charge twice: the workflow refuses a second payment of a session.
 */
async function ensureTemporalReachable(temporal: Client): Promise<void> {
  try {
    await temporal.withDeadline(Date.now() + REACHABLE_CHECK_MS, () => temporal.workflowService.getSystemInfo({}));
  } catch {
    throw new DomainError('service_unavailable');
  }
}

/** The session once its payment has ended, or as it is at the deadline. A poll: only a lost answer comes here. */
async function paymentEndedBy(deps: PayDeps, sessionId: string, deadline: number): Promise<CheckoutSession> {
  for (;;) {
    const current = await loadSession(deps, sessionId);
    if (current.status !== 'processing' || Date.now() >= deadline) return current;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function wait(ms: number): Promise<PayResult | null> {
  return new Promise((resolve) => setTimeout(() => resolve(null), ms).unref());
}
