/**
 * Verifies a webhook from the payments service, for merchants' receivers. Standalone on purpose: it imports
 * nothing but node:crypto, so it can be copied into any Node project.
 *
 *   import { verifyWebhook } from './verify-webhook.js';
 *   // Express: app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => { … })
 *   if (!verifyWebhook(req.body, req.get('X-Webhook-Signature'), process.env.WEBHOOK_SECRET)) {
 *     return res.status(400).end();
 *   }
 *   const event = JSON.parse(req.body.toString('utf8')); // de-duplicate on event.eventId
 *   res.status(200).end();
 *
 * The header is `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; the signature is the lowercase hex HMAC-SHA256
 * of `${t}.${rawBody}` keyed by the endpoint secret (`whsec_…`). Pass the raw body exactly as received,
 * never re-serialised JSON. During a secret rotation a delivery carries one `v1` per secret; a match on
 * any one is enough. Comparison is constant-time; a `t` more than `toleranceSec` away from now is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verifyWebhook(
  rawBody: string | Buffer,
  header: string | null | undefined,
  secret: string,
  toleranceSec = 300,
  nowSec: number = Math.floor(Date.now() / 1000),
): boolean {
  if (!header || !secret) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && /^\d+$/.test(value ?? '')) timestamp = Number(value);
    else if (key === 'v1' && value) signatures.push(value);
  }
  if (timestamp === undefined || !signatures.length) return false;
  if (Math.abs(nowSec - timestamp) > toleranceSec) return false;

  const expected = createHmac('sha256', secret)
    .update(`${timestamp}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest();
  let matched = false;
  for (const signature of signatures) {
    if (!/^[0-9a-f]{64}$/i.test(signature)) continue;
    // Every candidate is compared, so the time taken does not say which one matched.
    matched = timingSafeEqual(expected, Buffer.from(signature, 'hex')) || matched;
  }
  return matched;
}
