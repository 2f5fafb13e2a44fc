import {
  ContinueAsNew,
  isCancellation,
  proxySinks,
  TemporalFailure,
  workflowInfo,
  type Sinks,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type Next,
} from '@temporalio/workflow';

/** Runs in the worker's main thread (src/temporal/worker.ts), where the Prometheus registry lives. */
export interface MetricsSinks extends Sinks {
  metrics: { workflowFailed(workflowType: string): void };
}

const { metrics } = proxySinks<MetricsSinks>();

/**
 * Counts workflows that end failed. Only a TemporalFailure (ApplicationFailure, a failed activity)
 * fails a workflow; any other error fails just the task, which Temporal retries, and a cancellation
 * or continue-as-new is not a failure. Sinks are not called again on replay, so each failure counts once.
 */
class FailureMetricsInterceptor implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    try {
      return await next(input);
    } catch (err) {
      if (err instanceof TemporalFailure && !(err instanceof ContinueAsNew) && !isCancellation(err)) {
        metrics.workflowFailed(workflowInfo().workflowType);
      }
      throw err;
    }
  }
}

export const interceptors = (): WorkflowInterceptors => ({ inbound: [new FailureMetricsInterceptor()] });
