import type { Logger } from 'pino';

/**
 * How a starting process waits for what it needs (PostgreSQL, the migrations, Temporal): it tries, and
 * while a try fails it says so in one log line (what it waits for and the error's message, never a
 * stack: the same stack every few seconds would bury the one line an operator needs) and tries again
 * after 0.5 s, 1 s, 2 s, 4 s, then every 5 s. A dependency restarting, failing over or started after
 * this process is then a wait, not an exit; a dependency that never comes (a wrong address, a wrong
 * password) ends the wait at the deadline (STARTUP_TIMEOUT), with the last reason, so a supervisor's
 * restart count and its alerts show it.
 */
export type Wait = <T>(what: string, attempt: () => Promise<T>) => Promise<T>;

/** The wait ran out (STARTUP_TIMEOUT): its message says what was missing and why; an entry point prints it alone. */
export class StartupTimeout extends Error {}

export interface WaitOptions {
  log: Logger;
  /** How long, from now, before it gives up; null: never. */
  timeoutMs: number | null;
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Told what is waited for at each try, and null once it answered (the ops port's /readyz shows it). */
  onWait?: (what: string | null) => void;
}

export const FIRST_DELAY_MS = 500;
export const MAX_DELAY_MS = 5_000;

/** One wait for a whole start: every dependency's tries share its deadline. */
export function dependencyWait(opts: WaitOptions): Wait {
  const { log, firstDelayMs = FIRST_DELAY_MS, maxDelayMs = MAX_DELAY_MS } = opts;
  const started = Date.now();
  const deadline = opts.timeoutMs === null ? Infinity : started + opts.timeoutMs;
  return async (what, attempt) => {
    const since = Date.now();
    for (let tries = 1, delayMs = firstDelayMs; ; tries++, delayMs = Math.min(delayMs * 2, maxDelayMs)) {
      opts.onWait?.(what);
      try {
        const result = await attempt();
        opts.onWait?.(null);
        if (tries > 1) log.info({ waitingFor: what, tries, waitedMs: Date.now() - since }, `${what} answered after ${seconds(Date.now() - since)} s`);
        return result;
      } catch (err) {
        const reason = reasonOf(err);
        const now = Date.now();
        if (now >= deadline) throw new StartupTimeout(`gave up waiting for ${what} after ${seconds(now - started)} s (STARTUP_TIMEOUT): ${reason}`);
        // The last try falls on the deadline itself.
        const retryInMs = Math.min(delayMs, deadline - now);
        log.warn({ waitingFor: what, try: tries, retryInMs, reason }, `waiting for ${what}: ${reason}; trying again in ${seconds(retryInMs)} s`);
        await new Promise((resolve) => setTimeout(resolve, retryInMs));
      }
    }
  };
}

/** Waits for nothing: the attempt once (a test's process, `npm start`, which start their own servers first). */
export const noWait: Wait = (_what, attempt) => attempt();

const seconds = (ms: number) => String(Math.round(ms / 100) / 10);

/**
 * The error's message on one line. Node's own connect errors to a name with two addresses (localhost: ::1
 * and 127.0.0.1) are an AggregateError with an empty message, and the SDK's put the reason in a cause.
 */
export function reasonOf(err: unknown, depth = 0): string {
  if (!(err instanceof Error) || depth > 3) return String(err).split('\n')[0].slice(0, 300);
  const inner = err instanceof AggregateError && err.errors.length ? reasonOf(err.errors[0], depth + 1) : '';
  const own = (err.message || inner || (err as { code?: string }).code || err.name).split('\n')[0];
  const cause = err.cause instanceof Error ? reasonOf(err.cause, depth + 1) : '';
  return (cause && !own.includes(cause) ? `${own}: ${cause}` : own).slice(0, 300);
}
