import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';

/**
 * Heartbeats while a slow call (the processor) is in flight, so a worker that dies mid-call is noticed
 * within the activity's heartbeat timeout and the call is retried elsewhere, not after the full
 * start-to-close timeout. Outside an activity (unit tests) it simply awaits the call.
 */
export async function withHeartbeats<T>(call: Promise<T>, everyMs = 2_000): Promise<T> {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    return call;
  }
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await call;
  } finally {
    clearInterval(timer);
  }
}

/**
 * The processor's refusal (a refund or payout declined), as a non-retryable failure of `type` that the
 * workflow turns into `failed`. A business outcome, not a fault: BENIGN keeps it out of the worker's
 * error logs and metrics.
 */
export function declined(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, category: ApplicationFailureCategory.BENIGN });
}
