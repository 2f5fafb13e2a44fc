import Stripe from 'stripe';
import type { Logger } from 'pino';
import type { AcquirerConfig } from '../../config.js';
import { ConfigError } from '../../config.js';
import { createStripeClient } from './stripe.client.js';

/**
 * Whether Stripe takes this process's secret key: checked once at start (one read of the balance, only with
 * ACQUIRER=stripe), and afterwards learnt from every answer. A key Stripe refuses (401, or 403 for a
 * restricted key without a permission) is a configuration fault: an error line each time, and `/readyz`
 * failing (`acquirer`) until a read succeeds again, so a load balancer and an operator see it, where before
 * it read as Stripe being unavailable and was retried with nothing said.
 */
let refusal: { message: string; checkedAt: number } | null = null;

/** How often a failing `/readyz` asks Stripe again: a probe every few seconds must not become a request every few seconds. */
const RECHECK_MS = 60_000;
/** The start's read: short, and not retried, so a start is never held long by Stripe. */
const START_READ = { timeout: 5_000, maxNetworkRetries: 0 };

export const isRefusedKey = (err: unknown): err is Stripe.errors.StripeError =>
  err instanceof Stripe.errors.StripeAuthenticationError || err instanceof Stripe.errors.StripePermissionError;

/** Stripe refused the key on a call: remembered for `/readyz`, and said as an error. */
export function keyRefused(log: Logger | undefined, message: string, at = Date.now()): void {
  refusal = { message, checkedAt: at };
  log?.error({ acquirer: 'stripe' }, `Stripe refused STRIPE_SECRET_KEY (a configuration error; fix the key): ${message}`);
}

/** Stripe answered a call: the key is taken. */
export function keyTaken(): void {
  refusal = null;
}

/**
 * At start, with ACQUIRER=stripe: a key Stripe refuses stops the start, naming the variable, as a missing
 * one does; Stripe unreachable is only a warning (it is Stripe's outage, not this deployment's fault, and the
 * test-mode simulator still serves).
 */
export async function checkStripeKey(acquirer: Pick<AcquirerConfig, 'secretKey' | 'apiBase'>, log: Logger): Promise<void> {
  try {
    await createStripeClient(acquirer).balance.retrieve({}, START_READ);
    keyTaken();
  } catch (err) {
    if (isRefusedKey(err)) throw new ConfigError(`STRIPE_SECRET_KEY is refused by Stripe (${err.statusCode}): ${err.message}`);
    log.warn({ err }, 'Stripe did not answer the start-up key check; the key is checked again by the first call');
  }
}

/** `/readyz`'s `acquirer` check: fails while the key is refused, asking Stripe again at most once a minute. */
export async function stripeKeyReadiness(acquirer: Pick<AcquirerConfig, 'secretKey' | 'apiBase'>, now = Date.now()): Promise<void> {
  if (!refusal) return;
  if (now - refusal.checkedAt < RECHECK_MS) throw new Error(refusal.message);
  refusal.checkedAt = now;
  try {
    await createStripeClient(acquirer).balance.retrieve({}, START_READ);
    keyTaken();
  } catch (err) {
    if (isRefusedKey(err)) refusal = { message: err.message, checkedAt: now };
    throw err;
  }
}
