import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { DomainError } from '../../domain/errors.js';
import { metrics } from '../../ops/metrics.js';
import { isUnavailable } from '../../ops/unavailable.js';
import { answerOfResult, type PayAnswer, type PayHeard } from './pay-answer.rules.js';
import { askWorkflowToPay, updateHeld, type AttemptRequest } from './pay.transport.js';
import type { CheckoutSession } from './session.entity.js';

/**
 * How long past its own wait a pay call keeps trying to learn the truth: the database could not answer, or
 * the server holds its update unaccepted, or a pay ahead of it has not moved the session yet (pay.service.ts).
 */
export const IN_DOUBT_HOLD_MS = 20_000;
/** How long each renewed ask gives a worker to accept the update (durable in the workflow's history once it has). */
const ASK_AGAIN_MS = 3_000;

export interface InDoubtDeps {
  temporal: Client;
  taskQueue: string;
  acquirer: string;
  log?: Logger;
}

/** The database's answer to the call, given what was heard by then and a deadline for its own outcome; throws when it cannot be read or written. */
export type AnswerFromDatabase = (heard: PayHeard, deadline: number) => Promise<PayAnswer>;

/**
 * The answer of a pay call whose database went away before it could say what came of the payment: its read
 * failed, or the fence that makes a 503 true (`refuseAttempt`) could not be written. A 503 is then not known
 * to be true: the update may be held by the server, its `beginPayment` committed or still retrying, and the
 * card charged once the database is back. So the call makes `processing` true instead of guessing.
 *
 * It asks the workflow again under the same update id, which the server takes as the same update (or admits
 * it now, if the first ask never reached it): an update the server holds runs when the database is back, and
 * a `processing` answer comes true (completed or failed, or settled by the workflow if its task is lost).
 * Between asks it tries the database again, whose own answer, fence and 503 included, is true once it can be
 * read. Only the server's refusal of the update under this id makes a 503 true without the database.
 *
 * With neither the database nor Temporal answering by the call's hold (IN_DOUBT_HOLD_MS past its wait), it
 * answers `processing` unless the server said it holds no such update (then 503, nothing of it can run): the
 * one answer that may not come true is this `processing` for an update the server never held, when the
 * session then stays `pending` and its page offers the form again, with nothing charged (docs/decisions.md,
 * "A pay whose database went away before it could answer").
 */
export async function answerInDoubt(
  deps: InDoubtDeps,
  session: CheckoutSession,
  request: AttemptRequest,
  holdUntil: number,
  fromDatabase: AnswerFromDatabase,
): Promise<PayAnswer> {
  // An operator finds the session and what its customer was told (docs/runbook.md); the metric counts them.
  const told = (answer: string) => {
    metrics.payAnswerInDoubt(answer);
    deps.log?.warn({ sessionId: session.id, attemptId: request.attemptId, answer }, `pay in doubt: session ${session.id}, its database gone when the call came to answer, answered ${answer}`);
  };
  try {
    const answer = await establish(deps, session, request, holdUntil, fromDatabase);
    told(answer.status);
    return answer;
  } catch (err) {
    if (err instanceof DomainError) told(err.code === 'service_unavailable' ? 'retry' : 'not_payable');
    throw err;
  }
}

async function establish(deps: InDoubtDeps, session: CheckoutSession, request: AttemptRequest, holdUntil: number, fromDatabase: AnswerFromDatabase): Promise<PayAnswer> {
  for (let pause = 250; ; pause = Math.min(pause * 2, 2_000)) {
    const heard = await askWorkflowToPay(deps.temporal, deps.taskQueue, session, request, Math.min(Date.now() + ASK_AGAIN_MS, holdUntil), deps.acquirer);
    if (heard.kind === 'answered') return answerOfHeard(session, heard);
    // The server will not run an update under this id: nothing of this attempt can be charged.
    if (heard.kind === 'refused') throw new DomainError('service_unavailable');
    try {
      return await fromDatabase(heard, Date.now());
    } catch (err) {
      if (!isUnavailable(err)) throw err;
    }
    if (Date.now() >= holdUntil) break;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  if ((await updateHeld(deps.temporal, session.id, request.attemptId, 'admitted')) === 'not_found') throw new DomainError('service_unavailable');
  return answerOfResult(session, { kind: 'no_answer' });
}

/**
 * The workflow's result for this attempt: its outcome, or the final status that kept it from paying. Refused
 * while another pay was under way (`processing`, which may be a pay fenced off that leaves the session
 * pending) or while the session was payable (its own fence), this attempt never runs: a retry is true.
 */
function answerOfHeard(session: CheckoutSession, heard: PayHeard & { kind: 'answered' }): PayAnswer {
  const { outcome, status } = heard.result;
  if (outcome !== 'not_payable') return answerOfResult(session, heard);
  if (!status || status === 'pending' || status === 'processing') throw new DomainError('service_unavailable');
  throw new DomainError('session_not_payable', { params: { status } });
}
