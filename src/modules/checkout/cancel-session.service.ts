import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { z } from 'zod';
import { sessionClosedSignal } from '../../../contracts/checkout.js';
import { CheckoutSession } from './session.entity.js';
import { checkoutWorkflowId } from '../../../contracts/workflow-ids.js';

export interface CancelSessionDeps {
  em: EntityManager;
  temporal: Client;
  log: Logger;
}

export interface CancelSessionResult {
  /** True when this call moved the session from pending to cancelled. */
  cancelled: boolean;
  session: CheckoutSession;
}

const UUID = z.uuid();

/**
 * The customer's Cancel on the hosted page. Only a `pending` session is cancelled, by one conditional
 * UPDATE, so a cancel racing a payment (already `processing`) or a second click changes nothing. A session
 * somebody tried to pay has a checkout workflow; it is told the session is closed, so its timer ends.
 * That signal is a courtesy: if it is lost (Temporal unreachable), the workflow's expiry is conditional on
 * `pending` and leaves the cancelled session as it is. Returns null for an unknown or malformed id.
 */
export async function cancelSession(deps: CancelSessionDeps, sessionId: string): Promise<CancelSessionResult | null> {
  if (!UUID.safeParse(sessionId).success) return null;
  const changed = await deps.em.nativeUpdate(
    CheckoutSession,
    { id: sessionId, status: 'pending' },
    { status: 'cancelled', updatedAt: new Date() },
  );
  const session = await deps.em.findOne(CheckoutSession, { id: sessionId }, { refresh: true });
  if (!session) return null;
  if (changed > 0) {
    try {
      await deps.temporal.workflow.getHandle(checkoutWorkflowId(sessionId)).signal(sessionClosedSignal, sessionId, 'cancelled');
    } catch (err) {
      // Most sessions never had a workflow: nobody tried to pay them.
      if (err instanceof WorkflowNotFoundError) return { cancelled: true, session };
      deps.log.warn({ err, sessionId }, 'could not signal the checkout workflow; its expiry will find the session cancelled');
    }
  }
  return { cancelled: changed > 0, session };
}
