/**
 * Verifies a delivery from the payments service and returns its typed event. The header is
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; each `v1` is the lowercase hex HMAC-SHA256 of `${t}.${rawBody}`
 * keyed by the endpoint secret (`whsec_…`). During a secret rotation a delivery carries one `v1` per
 * secret; a match on any one is enough. Pass the raw body exactly as received, never re-serialised JSON.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookHeaderError, WebhookPayloadError, WebhookSignatureError, WebhookTimestampError } from './errors.js';
import type { WebhookEvent } from './events.js';

export interface ConstructEventOptions {
  /** How far `t` may be from now, either way (default 300 s, as the service's signatures assume). */
  toleranceSeconds?: number;
  /** Now, in Unix seconds (for tests). */
  nowSeconds?: number;
}

export interface SignatureHeader {
  timestamp: number;
  signatures: string[];
}

/** Reads `t=…,v1=…[,v1=…]`; other schemes (`v0=…`) are ignored, as standard verifiers do. */
export function parseSignatureHeader(header: string | null | undefined): SignatureHeader {
  if (!header) throw new WebhookHeaderError('No X-Webhook-Signature header');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    const [key, value] = at < 0 ? [part.trim(), ''] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    if (key === 't' && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined) throw new WebhookHeaderError('X-Webhook-Signature has no t=<unix seconds>');
  if (!signatures.length) throw new WebhookHeaderError('X-Webhook-Signature has no v1=<64 hex digits> signature');
  return { timestamp, signatures };
}

const asBytes = (body: string | Uint8Array) => (typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength));

/**
 * Checks the signature and the timestamp, then parses the body. Throws a WebhookHeaderError,
 * WebhookTimestampError, WebhookSignatureError or WebhookPayloadError (all WebhookVerificationError).
 */
export function constructEvent(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  { toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000) }: ConstructEventOptions = {},
): WebhookEvent {
  if (!secret) throw new TypeError('constructEvent needs the endpoint secret (whsec_…)');
  const { timestamp, signatures } = parseSignatureHeader(signatureHeader);
  const body = asBytes(rawBody);
  const expected = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest();
  let matched = false;
  for (const signature of signatures) {
    // Every candidate is compared in constant time, so the time taken says neither how much of one
    // matched nor which one did.
    matched = timingSafeEqual(expected, Buffer.from(signature, 'hex')) || matched;
  }
  if (!matched) throw new WebhookSignatureError();
  // The timestamp is signed: checked after the signature, so a forged one is reported as forged.
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) throw new WebhookTimestampError(timestamp, toleranceSeconds);
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookPayloadError('The signed body is not JSON');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new WebhookPayloadError('The signed body is not a JSON object');
  return event as WebhookEvent;
}
