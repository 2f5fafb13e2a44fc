import Stripe from 'stripe';
import type { AcquirerConfig } from '../../config.js';

/**
 * The Stripe API version every request is pinned to: the one stripe-mock v0.203.0 serves (its OpenAPI
 * description, scripts/provision-stripe-mock.sh), so the contract tests check the requests this service
 * really sends, field for field (`-strict-version-check` refuses any other). The `stripe` package's own
 * default is later (its types describe that one); a newer version is adopted by moving this and the mock
 * together, and the contract tests say whether anything the connector sends changed meaning.
 */
export const STRIPE_API_VERSION = '2026-08-26.dahlia';

/**
 * How long one request may take: the activities that call Stripe have 30 s to close, and the library
 * retries a request that failed on the network (with the same Idempotency-Key) within it.
 */
const REQUEST_TIMEOUT_MS = 15_000;

/** The official client for one account, at Stripe (or stripe-mock, STRIPE_API_BASE), on the pinned API version. */
export function createStripeClient(acquirer: Pick<AcquirerConfig, 'secretKey' | 'apiBase'>): Stripe {
  const base = acquirer.apiBase ? new URL(acquirer.apiBase) : null;
  return new Stripe(acquirer.secretKey, {
    apiVersion: STRIPE_API_VERSION as Stripe.LatestApiVersion,
    maxNetworkRetries: 2,
    timeout: REQUEST_TIMEOUT_MS,
    appInfo: { name: 'payments-service' },
    telemetry: false,
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'https:' ? 'https' : 'http' } : {}),
  });
}
