import { createHmac } from 'node:crypto';

/**
 * The spec's signature: lowercase hex HMAC-SHA256 over `${t}.${rawBody}`, keyed by the endpoint's
 * secret string as it was shown to the merchant (`whsec_…`).
 */
export function signPayload(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

/**
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>]`, no spaces. During a secret rotation every current secret signs,
 * newest first; standard verifiers accept a match on any `v1`.
 */
export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: string): string {
  if (!secrets.length) throw new Error('a webhook needs at least one signing secret');
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signPayload(secret, timestamp, rawBody)}`)].join(',');
}
