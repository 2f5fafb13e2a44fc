import {
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
 * What an operator sees of a refund or withdrawal workflow in the Temporal UI, and the one thing they
 * may do to it: the `PaymentStatus` search attribute follows the record, the current details name the
 * step and the last error, and a `retry` signal cuts short the wait before the next processor attempt.
 */
export const retrySignal = defineSignal('retry');

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

export function createOperatorView() {
  let lastError: string | null = null;
  let retryRequested = false;
  setHandler(retrySignal, () => {
    retryRequested = true;
  });

  const step = (text: string) => setCurrentDetails(`${text}\n\nLast error: ${lastError ?? 'none'}`);

  return {
    step,
    /** The record's own status, searchable as `PaymentStatus`. */
    status(status: string) {
      upsertSearchAttributes([{ key: PaymentStatus, value: status }]);
    },
    /**
     * Calls the processor until it answers: a permanent refusal (a non-retryable failure of
     * `declinedType`) is returned as `{ok: false}`; anything else is transient and tried again after a
     * growing wait, which the `retry` signal ends early. The call's idempotency key makes repeats safe.
     */
    async callProcessor<T>(what: string, declinedType: string, call: () => Promise<T>): Promise<ProcessorOutcome<T>> {
      for (let round = 1; ; round++) {
        step(`${what}${round > 1 ? ` (round ${round})` : ''}`);
        try {
          return { ok: true, value: await call() };
        } catch (err) {
          if (!(err instanceof ActivityFailure)) throw err;
          const cause = err.cause;
          if (cause instanceof ApplicationFailure && cause.type === declinedType) return { ok: false, reason: cause.message };
          lastError = cause?.message ?? err.message;
          const wait = processorBackoffMs(round);
          retryRequested = false;
          step(`Waiting ${formatWait(wait)} before trying the processor again (signal "retry" to try now)`);
          await condition(() => retryRequested, wait);
        }
      }
    },
  };
}
