/** What every traffic loop of the soak shares: the clients, the counters, and when to stop. */
import type { Accept } from '../support/http.js';
import type { SoakClient, Stats } from './stats.js';
import type { SoakStack } from './stack.js';

export interface SoakContext {
  stack: SoakStack;
  stats: Stats;
  /** True once the time or the request budget is spent: every loop ends its round and returns. */
  stopped: () => boolean;
  /** The next API process, round-robin, as a load balancer spreads a client's requests. */
  api: () => SoakClient;
  /** Work that outlives its loop's round (waiting for a refund to settle); awaited before the checks. */
  background: (work: Promise<unknown>) => void;
}

export function createContext(stack: SoakStack, opts: { seconds: number; maxRequests: number }) {
  const deadline = Date.now() + opts.seconds * 1000;
  const pending = new Set<Promise<unknown>>();
  let turn = 0;
  const context: SoakContext = {
    stack,
    stats: stack.stats,
    stopped: () => Date.now() >= deadline || stack.stats.requests >= opts.maxRequests,
    api: () => stack.apis[turn++ % stack.apis.length],
    background: (work) => {
      const tracked = work.catch((err) => stack.stats.problem(`background flow threw: ${(err as Error).stack ?? err}`));
      pending.add(tracked);
      void tracked.finally(() => pending.delete(tracked));
    },
  };
  return { context, drain: async () => void (await Promise.all([...pending])) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const randomInt = (below: number) => Math.floor(Math.random() * below);

/** The error answers the spec names, as `accept` entries. */
export const error = (status: number, type: string, message?: string | RegExp): Accept => ({ status, type, message });
export const validation = (message?: string | RegExp) => error(400, 'validation_error', message);
export const notFound = (message?: string) => error(404, 'not_found', message);
/** Any client error: hostile input may be refused in more than one right way, but never with a 5xx. */
export const ANY_4XX: Accept[] = Array.from({ length: 100 }, (_, i) => 400 + i);

/** Polls `read` until `done` says so or the time is up; the last value either way. */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, everyMs = 500): Promise<{ value: T; done: boolean }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, done: true };
    if (Date.now() > until) return { value, done: false };
    await sleep(everyMs);
  }
}
