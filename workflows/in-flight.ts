import {
  type ActivityOptions,
  ActivityFailure,
  ApplicationFailure,
  condition,
  defineSignal,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { PaymentStatus } from '../contracts/search-attributes.js';

/**
 * What the refund and withdrawal workflows share: their money sits in flight (`refunds_in_flight`,
 * `pending_withdrawal`) from `processing` until the processor answers. What an operator sees of them in
 * the Temporal UI, and the one thing they may do to them: the `PaymentStatus` search attribute follows
 * the record, the current details name the step and the last error, and a `retry` signal cuts short the
 * wait before the next processor attempt.
 */
export const retrySignal = defineSignal('retry');

/** The database transitions: retried until the database is back; each is conditional, so safe to repeat. */
export const databaseStepOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
} as const satisfies ActivityOptions;

/**
 * The processor call: heartbeats (a dead worker is noticed in 10 s), and a few quick tries for a blip;
 * after that `processorCalls`' backoff (and the operator's `retry`) takes over.
 */
export const processorCallOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
} as const satisfies ActivityOptions;

/** The wait before processor round n+1, once an activity's own quick retries are spent: 30 s doubling, at most 1 h. */
export function processorBackoffMs(round: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, round - 1), 3_600_000);
}

export function formatWait(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

export type ProcessorOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** What an operator reads of the run in the Temporal UI; `processorCalls` reports its errors here. */
export interface OperatorView {
  /** The current details: the step, and below it the last error. */
  step(text: string): void;
  /** The record's own status, searchable as `PaymentStatus`. */
  status(status: string): void;
  /** Remembered as the last error, shown under every later step. */
  error(message: string): void;
}

export function operatorView(): OperatorView {
  let lastError: string | null = null;
  return {
    step: (text) => setCurrentDetails(`${text}\n\nLast error: ${lastError ?? 'none'}`),
    status: (status) => upsertSearchAttributes([{ key: PaymentStatus, value: status }]),
    error(message) {
      lastError = message;
    },
  };
}

/**
 * The processor retry loop: `call` calls the processor until it answers. A permanent refusal (a
 * non-retryable failure of `declinedType`) is returned as `{ok: false}`; anything else is transient and
 * tried again after a growing wait, shown in `view`, which the `retry` signal ends early. The call's
 * idempotency key makes repeats safe. Set up at the start of the run, so a `retry` is never unhandled.
 */
export function processorCalls(view: OperatorView) {
  let retryRequested = false;
  setHandler(retrySignal, () => {
    retryRequested = true;
  });
  return {
    async call<T>(what: string, declinedType: string, call: () => Promise<T>): Promise<ProcessorOutcome<T>> {
      for (let round = 1; ; round++) {
        view.step(`${what}${round > 1 ? ` (round ${round})` : ''}`);
        try {
          return { ok: true, value: await call() };
        } catch (err) {
          if (!(err instanceof ActivityFailure)) throw err;
          const cause = err.cause;
          if (cause instanceof ApplicationFailure && cause.type === declinedType) return { ok: false, reason: cause.message };
          view.error(cause?.message ?? err.message);
          const wait = processorBackoffMs(round);
          retryRequested = false;
          view.step(`Waiting ${formatWait(wait)} before trying the processor again (signal "retry" to try now)`);
          await condition(() => retryRequested, wait);
        }
      }
    },
  };
}
