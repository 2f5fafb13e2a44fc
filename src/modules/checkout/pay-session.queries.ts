import type { MikroORM } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { DomainError } from '../../domain/errors.js';
import type { PayHeard } from './pay-answer.rules.js';
import { attemptRefused } from './payment.lifecycle.js';
import { CheckoutSession, type SessionStatus } from './session.entity.js';

/**
 * The pay call's reads of its session: before the call, and the waits after it while another move is on
 * its way (pay.service.ts says when each is asked).
 */
interface Reads {
  orm: MikroORM;
}

const UUID = z.uuid();

export async function loadSession(deps: Reads, sessionId: string): Promise<CheckoutSession> {
  const session = UUID.safeParse(sessionId).success ? await deps.orm.em.fork().findOne(CheckoutSession, { id: sessionId }) : null;
  if (!session) throw new DomainError('session_not_found');
  return session;
}

/**
 * The session as the database has it after the call. When the database cannot be read but the workflow
 * answered this call's own outcome, that answer stands (null): the payment is recorded, and telling the
 * customer to retry a paid session would not be true.
 */
export async function sessionAfter(deps: Reads, session: CheckoutSession, heard: PayHeard): Promise<CheckoutSession | null> {
  try {
    return await loadSession(deps, session.id);
  } catch (err) {
    if (heard.kind === 'answered' && heard.result.outcome !== 'not_payable') return null;
    throw err;
  }
}

/**
 * The session once the pay ahead of this one (`ahead`, the attempt the run was paying) has moved it, or as it
 * is once that attempt is fenced off (it then runs to nothing) or at the deadline. While that attempt is not
 * fenced it is waited for until `holdUntil`: a worker or database slow on a busy machine moves it late, and
 * this customer is then told the truth (the session's status) rather than to retry. Not named (a run from
 * before the name was given), it is waited for until the deadline alone.
 */
export async function behindPayAhead(deps: Reads, sessionId: string, ahead: string | undefined, deadline: number, holdUntil: number): Promise<CheckoutSession> {
  const until = ahead ? holdUntil : deadline;
  let current = await loadSession(deps, sessionId);
  while (current.status === 'pending' && Date.now() < until && !(ahead && (await attemptRefused(deps.orm.em.fork(), sessionId, ahead)))) {
    current = await sessionLeaving('pending', deps, sessionId, Math.min(Date.now() + 1_000, until));
  }
  return current;
}

/**
 * The session once it has left `status`, or as it is at the deadline. A poll, for the two calls that wait on
 * the database: one whose payment is under way without its outcome heard (`processing`), and one the run
 * refused behind another pay that has not moved the session yet (`pending`). A read that fails after the
 * first leaves the last one read, which is true: never a 503 for a session this call moved.
 */
export async function sessionLeaving(status: SessionStatus, deps: Reads, sessionId: string, deadline: number): Promise<CheckoutSession> {
  let current = await loadSession(deps, sessionId);
  while (current.status === status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      current = await loadSession(deps, sessionId);
    } catch {
      return current;
    }
  }
  return current;
}
