/** How a pay call reaches the session's checkout workflow, and what it can learn when no answer comes. */
import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage, type Client } from '@temporalio/client';
import { checkoutWorkflowContract, payUpdate, type CheckoutWorkflow, type PayRequest, type PayResult } from '../../../contracts/checkout.js';
import { toSearchAttributePairs } from '../../../contracts/search-attributes.js';
import { checkoutWorkflowId } from '../../../contracts/workflow-ids.js';
import { centsToDecimalString } from '../../domain/money.js';
import { failpoint } from '../../ops/failpoints.js';
import type { PayHeard } from './pay-answer.rules.js';
import type { CheckoutSession } from './session.entity.js';

/** A pay as a call sends it: always under its own attempt id, which is also its update's id. */
export type AttemptRequest = PayRequest & { attemptId: string };

/** How long the check after a silent deadline gives Temporal to say whether it holds the update. */
const ADMISSION_CHECK_MS = 2_000;
/** The pause between asks while a held update waits for a worker to accept it. */
const ACCEPTANCE_POLL_MS = 500;
/** Temporal's UpdateWorkflowExecutionLifecycleStage (the client exports only its own names for the stages). */
const STAGES = { admitted: 1, accepted: 2 } as const;
const COMPLETED_STAGE = 3;
/** gRPC's NOT_FOUND: the server answered, and holds no such update (or no such workflow). */
const GRPC_NOT_FOUND = 5;

/**
 * The `pay` Update of the session's checkout workflow, started with it if needed, and what was heard by
 * `deadline`. The deadline is on the Temporal call itself (a gRPC deadline on every request it makes,
 * retries included), so at the deadline the call is abandoned, not left retrying behind the answer: an
 * update the server had not admitted by then never will be from this call. The update's id is the
 * attempt's, so the server can later say whether it holds it (`updateHeld`).
 */
export async function askWorkflowToPay(
  temporal: Client,
  taskQueue: string,
  session: CheckoutSession,
  request: AttemptRequest,
  deadline: number,
  acquirer = 'simulator',
): Promise<PayHeard> {
  try {
    const result = await temporal.withDeadline(deadline, async () => {
      await failpoint('pay.before-update', session.id);
      const update = await temporal.workflow.startUpdateWithStart(payUpdate, {
        args: [request],
        updateId: request.attemptId,
        waitForStage: WorkflowUpdateStage.ACCEPTED,
        startWorkflowOperation: checkoutStart(session, taskQueue, acquirer),
      });
      return update.result();
    });
    return { kind: 'answered', result };
  } catch (err) {
    // Silent until the deadline (Temporal down, no worker yet, a payment still running): whether the
    // update will still run is for the server to say.
    if (Date.now() >= deadline) return { kind: 'no_answer' };
    // The update itself failed: nothing more will come of it.
    if (err instanceof WorkflowUpdateFailedError) return { kind: 'refused' };
    // Any other error before the deadline may have come after the server took the update (a busy server's
    // own DEADLINE_EXCEEDED on the long poll, which the client reports as this call's timeout; a connection
    // reset after the update was admitted): its outcome is asked for by its id, until the same deadline. An
    // update the server does not know by then is refused (the database then says whether this call paid).
    return outcomeById(temporal, session.id, request.attemptId, deadline);
  }
}

/** How long to wait before asking again after an error that says nothing about the update. */
const ASK_AGAIN_MS = 100;

/**
 * The outcome of this call's update, asked for by its id until `deadline`: `refused` when the server does
 * not hold it (never admitted: too many in flight, the closed workflow could not start again) or it failed.
 */
export async function outcomeById(temporal: Client, sessionId: string, attemptId: string, deadline: number): Promise<PayHeard> {
  const update = temporal.workflow.getHandle(checkoutWorkflowId(sessionId)).getUpdateHandle<PayResult>(attemptId);
  while (Date.now() < deadline) {
    try {
      return { kind: 'answered', result: await temporal.withDeadline(deadline, () => update.result()) };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError) return { kind: 'refused' };
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ASK_AGAIN_MS, deadline - Date.now()))));
    }
  }
  return { kind: 'no_answer' };
}

/**
 * Whether the server holds this call's update, at least at `stage`, after the call went unanswered: `held`
 * (admitted: a worker will run it, unless a restart of the server loses it first; accepted: in the workflow's
 * history, so it runs whatever restarts), `not_found` (the server says it does not hold it: never admitted,
 * or lost with a restarted server, so nothing will come of it) or `unknown` (not at that stage in time, or no
 * answer: the server may hold it or not).
 */
export async function updateHeld(temporal: Client, sessionId: string, attemptId: string, stage: keyof typeof STAGES): Promise<'held' | 'not_found' | 'unknown'> {
  const reached = await updateStage(temporal, sessionId, attemptId, stage);
  if (reached === 'not_found') return 'not_found';
  // Completed, it will run no more: what it did is in the database (its own outcome moved the session), or
  // it did nothing (refused behind another pay). Taken for accepted, it gave "processing" to a session that
  // then stayed pending (a Temporal restart had cut the call off from the update's quick refusal).
  if (stage === 'accepted' && reached === 'completed') return 'unknown';
  return typeof reached === 'number' && reached >= STAGES[stage] ? 'held' : 'unknown';
}

/**
 * Whether this call's update is accepted, asked after its deadline passed in silence, waiting until
 * `holdUntil` while the server says it holds the update admitted: a worker slow to take the workflow's task
 * on a busy machine accepts it late, and the customer is then told `processing`, which is true, where a
 * fence would have told a customer with nothing wrong to retry. A server that does not answer, or holds no
 * such update, or has completed it (see updateHeld), ends the wait at once.
 */
export async function updateAccepted(temporal: Client, sessionId: string, attemptId: string, holdUntil: number): Promise<boolean> {
  for (;;) {
    if ((await updateHeld(temporal, sessionId, attemptId, 'accepted')) === 'held') return true;
    if (Date.now() >= holdUntil) return false;
    // Held still (admitted, or accepted since the last ask: the next ask says so): keep waiting.
    const stage = await updateStage(temporal, sessionId, attemptId, 'admitted');
    if (typeof stage !== 'number' || stage < STAGES.admitted) return false;
    await new Promise((resolve) => setTimeout(resolve, ACCEPTANCE_POLL_MS));
  }
}

/** The furthest stage the server says the update reached, waiting up to ADMISSION_CHECK_MS for `stage`. */
async function updateStage(temporal: Client, sessionId: string, attemptId: string, stage: keyof typeof STAGES): Promise<number | 'completed' | 'not_found' | 'unknown'> {
  try {
    const response = await temporal.withDeadline(Date.now() + ADMISSION_CHECK_MS, () =>
      temporal.workflowService.pollWorkflowExecutionUpdate({
        namespace: temporal.options.namespace,
        updateRef: { workflowExecution: { workflowId: checkoutWorkflowId(sessionId) }, updateId: attemptId },
        identity: temporal.options.identity,
        waitPolicy: { lifecycleStage: STAGES[stage] },
      }),
    );
    const reached = response.stage ?? 0;
    return reached >= COMPLETED_STAGE ? 'completed' : reached;
  } catch (err) {
    return (err as { code?: unknown }).code === GRPC_NOT_FOUND ? 'not_found' : 'unknown';
  }
}

/**
 * The session's checkout workflow, by reference as every start: the compiler checks `args` against its
 * parameters. Its summary names the acquirer that takes the payment, so the Temporal UI shows it.
 */
function checkoutStart(session: CheckoutSession, taskQueue: string, acquirer: string) {
  return new WithStartWorkflowOperation<CheckoutWorkflow>(checkoutWorkflowContract.name, {
    workflowId: checkoutWorkflowId(session.id),
    taskQueue,
    args: [{ sessionId: session.id, expiresAt: session.expiresAt.toISOString() }],
    // The first pay starts the session's workflow; a second one (a retry, another tab) finds it running.
    workflowIdConflictPolicy: 'USE_EXISTING',
    // Once the workflow has closed, the session's payment is over: a late call (or the client's own resend
    // of an update whose acceptance it did not hear) must not start a second run that answers for the
    // first. Only a run that failed or was terminated may be followed by a new one.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    staticSummary: `Checkout ${session.id} of $${centsToDecimalString(session.total)} via ${acquirer}`,
    typedSearchAttributes: toSearchAttributePairs({
      BusinessId: session.businessId,
      Livemode: session.livemode,
      PaymentStatus: session.status,
      AmountInCents: session.total,
    }),
  });
}
