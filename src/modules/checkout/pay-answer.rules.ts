import type { PayResult } from '../../../contracts/checkout.js';
import type { z } from 'zod';
import type { payAnswerResource } from './pay.schemas.js';
import { paymentRedirectUrl } from './redirect.rules.js';
import type { SessionStatus } from './session.entity.js';

export type PayAnswer = z.output<typeof payAnswerResource>;

/**
 * What a pay call heard from the session's checkout workflow:
 * - `answered`: its update's result;
 * - `no_answer`: nothing by the deadline, and the call was abandoned there;
 * - `accepted`: nothing by the deadline, but the update is in the workflow's history, so it will run;
 * - `refused`: no result will come: Temporal answered with an error instead (the update failed, the closed
 *   workflow could not start again, too many updates were in flight), or never admitted the update.
 */
export type PayHeard = { kind: 'answered'; result: PayResult } | { kind: 'no_answer' } | { kind: 'accepted' } | { kind: 'refused' };

export type PayVerdict =
  | { answer: 'status'; status: SessionStatus | 'processing' }
  | { answer: 'not_payable'; status: string }
  | { answer: 'retry' };

/**
 * The answer to a pay call, from what it heard and the session as the database has it afterwards. The
 * database decides who paid: the session's `paymentAttemptId` names the one call that moved it out of
 * `pending`. That call is told the session's status even when its update's own answer was lost (a
 * restarted server, a redelivered update, a result read from a later run): a session in `processing` has
 * an owner that ends it (its checkout workflow settles a payment it did not hear of), so `processing` is
 * true. Every other call is told the session cannot be paid, with the status that says why, once it has
 * moved (while it is still `pending`, the run's "another pay is under way" is no status of it). A session
 * still `pending` is `processing` only once the call's update is accepted (in the workflow's history, so
 * no restart of the server can lose it); otherwise the call fences its attempt off and tells the customer
 * to retry (503): nothing was charged and nothing will be.
 */
export function payVerdict(
  session: { status: SessionStatus; paymentAttemptId?: string | null },
  attemptId: string,
  heard: PayHeard,
): PayVerdict {
  const mine = session.paymentAttemptId === attemptId;
  const ownOutcome = heard.kind === 'answered' && heard.result.outcome !== 'not_payable';
  if (mine || ownOutcome) return { answer: 'status', status: session.status === 'pending' ? 'processing' : session.status };
  if (session.status !== 'pending') return { answer: 'not_payable', status: session.status };
  switch (heard.kind) {
    // Accepted, its first step not yet run (a worker slow to take the task, the database slow to answer).
    case 'accepted':
      return { answer: 'status', status: 'processing' };
    // The run refused this attempt because another pay was under way there, which has not moved the session:
    // perhaps one its own call fenced off, which runs to nothing and leaves the session pending, so
    // "processing" would not be true. This attempt will never run: the customer may try again.
    case 'answered':
    // Nothing was paid and nothing will be: the customer may try again.
    case 'no_answer':
    case 'refused':
      return { answer: 'retry' };
  }
}

/**
 * The answer from the workflow's own result, when only that is known (the database could not be read):
 * its status, or `processing` when nothing of the outcome was heard. A charge opened for the browser to
 * confirm (`confirm`) is answered with its secret, whichever way the call learnt of it: without the secret
 * the page has no card form to show, and the customer could only wait for the session to expire.
 */
export function answerOfResult(session: { id: string; successUrl?: string | null; failureUrl?: string | null }, heard: PayHeard): PayAnswer {
  if (heard.kind === 'answered' && heard.result.outcome === 'confirm') return confirmationAnswer(session.id, heard.result);
  const status = (heard.kind === 'answered' && heard.result.status) || 'processing';
  return { sessionId: session.id, status: status as PayAnswer['status'], redirectUrl: paymentRedirectUrl({ ...session, status }) };
}

/** The page's answer for a charge it confirms at the acquirer: the intent's secret and where Stripe sends the customer back. */
export const confirmationAnswer = (sessionId: string, { clientSecret, returnUrl }: { clientSecret: string; returnUrl: string }): PayAnswer => ({
  sessionId,
  status: 'processing',
  redirectUrl: null,
  confirmation: { clientSecret, returnUrl },
});
