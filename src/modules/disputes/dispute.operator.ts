import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { decideDisputeUpdate } from '../../../contracts/disputes.js';
import type { DisputeTimes } from '../../config.js';
import { requireTransaction } from '../../db/transaction.js';
import { DomainError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { OutboxEntry } from '../outbox/index.js';
import { Dispute } from './dispute.entity.js';
import { openDispute, type DisputeNotice } from './dispute.lifecycle.js';
import { isClosed, type Outcome } from './dispute.rules.js';
import { disputeWorkflowStart } from './dispute.start.js';
import { disputeWorkflowId } from '../../../contracts/workflow-ids.js';

/**
 * What an operator enters from a real acquirer's reports (`npm run admin -- dispute open|decide`), in
 * either mode. The notice opens the dispute in the command's own transaction, so the command can say
 * what it withdrew; its workflow starts through the outbox (a worker's relay). A decision goes to the
 * dispute's workflow as an update, which moves the money in its activity and answers once it has.
 */

/** How long `dispute decide` waits for the workflow to record the decision before giving up. */
const DECIDE_DEADLINE_MS = 60_000;

export async function recordDisputeNotice(
  tx: EntityManager,
  input: Omit<DisputeNotice, 'disputeId'>,
  times: DisputeTimes,
): Promise<{ dispute: Dispute; opened: boolean }> {
  requireTransaction(tx);
  const notice: DisputeNotice = { disputeId: newId('dsp'), ...input };
  const result = await openDispute(tx, notice, times);
  if (result.opened) {
    const { dispute } = result;
    const context = { businessId: dispute.businessId, livemode: dispute.livemode, amountInCents: dispute.amountInCents, times, noticeDelayMs: 0, opened: dispute };
    tx.create(OutboxEntry, { createdAt: dispute.createdAt, message: disputeWorkflowStart(notice, context) });
  }
  return result;
}

/**
 * The acquirer's decision on an open dispute. Answers the dispute afterwards and whether the decision
 * changed it: a dispute already closed (by the deadline, the merchant, another decision) is left as it is.
 */
export async function enterDisputeDecision(
  em: EntityManager,
  temporal: Client,
  id: string,
  outcome: Outcome,
): Promise<{ dispute: Dispute; changed: boolean }> {
  const before = await em.fork().findOne(Dispute, { id });
  if (!before) throw new DomainError('dispute_not_found');
  if (isClosed(before.status)) return { dispute: before, changed: false };
  const handle = temporal.workflow.getHandle(disputeWorkflowId(id));
  const deadline = Date.now() + DECIDE_DEADLINE_MS;
  for (;;) {
    try {
      await temporal.connection.withDeadline(deadline, () => handle.executeUpdate(decideDisputeUpdate, { args: [{ disputeId: id, outcome }] }));
      break;
    } catch (err) {
      // Refused: the dispute closed meanwhile, and the database says how.
      if (err instanceof WorkflowUpdateFailedError) break;
      // Not started yet (a notice entered a moment ago; the relay starts its workflow): ask again shortly.
      if (!(err instanceof WorkflowNotFoundError) || Date.now() > deadline) throw err;
      if (isClosed((await em.fork().findOneOrFail(Dispute, { id })).status)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  const after = await em.fork().findOneOrFail(Dispute, { id });
  return { dispute: after, changed: after.status !== before.status || after.updatedAt.getTime() !== before.updatedAt.getTime() };
}
