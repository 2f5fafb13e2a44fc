import type { Context } from 'koa';
import { addressBudgetKey } from '../../http/client-address.js';
import { rateLimitError, setRateLimitHeaders, stateOf } from '../../http/rate-limit.js';

const WINDOW_MS = 60_000;
/** Addresses tracked at once; past it the oldest window is dropped (memory stays bounded under a spread flood). */
const MAX_ADDRESSES = 100_000;

/**
 * The limit on failed authentication, per client address (its IPv6 /64, as the public limit counts):
 * `perMinute` 401s in a fixed minute from the first, after which the address is answered 429 instead of
 * 401 and its keys are not looked up in the database until the minute is over. A key this process
 * already holds (the key cache) still works, so a merchant behind the same address as a guesser keeps
 * working while its key is cached.
 *
 * Counted in this process, not in PostgreSQL as the other limits are: its purpose is to keep floods of
 * wrong keys off the database, and a shared counter would cost the database a write per failure. Each
 * API process counts on its own, so an address gets this many a minute per process.
 */
export interface AuthFailures {
  /** Throws the 429 when the address has spent its failures: before a lookup, and instead of a 401. */
  refuseIfSpent(ctx: Context): void;
  /** Counts one 401 against the address. */
  count(ctx: Context): void;
}

export function createAuthFailures(perMinute: number, maxAddresses = MAX_ADDRESSES): AuthFailures {
  const windows = new Map<string, { failures: number; endsAt: number }>();
  const current = (address: string, now: number) => {
    const window = windows.get(address);
    if (!window || window.endsAt > now) return window;
    windows.delete(address);
    return undefined;
  };
  return {
    refuseIfSpent(ctx) {
      const now = Date.now();
      const window = current(addressBudgetKey(ctx.ip), now);
      if (!window || window.failures < perMinute) return;
      const state = stateOf('auth', WINDOW_MS / 1000, perMinute, 0, window.endsAt - now, false);
      setRateLimitHeaders(ctx, state);
      throw rateLimitError(state);
    },
    count(ctx) {
      const now = Date.now();
      const address = addressBudgetKey(ctx.ip);
      const window = current(address, now);
      if (window) {
        window.failures++;
        return;
      }
      if (windows.size >= maxAddresses) windows.delete(windows.keys().next().value!);
      windows.set(address, { failures: 1, endsAt: now + WINDOW_MS });
    },
  };
}
