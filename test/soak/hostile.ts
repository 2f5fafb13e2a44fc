/**
 * An attacker's (or a broken client's) requests, interleaved with the real traffic: bad and deeply
 * nested JSON, the wrong content type, NUL bytes and invalid UTF-8, tampered and foreign cursors,
 * unknown and other businesses' ids, bad keys. Each must get a 4xx (the exact one where the spec or the
 * issue names it) and change nothing; a 5xx is the failure the soak exists to find.
 */
import { randomUUID } from 'node:crypto';
import { payBody, sessionBody } from '../support/payments.js';
import type { RequestOptions } from '../support/http.js';
import type { SoakClient } from './stats.js';
import { ANY_4XX, error, notFound, sleep, validation, type SoakContext } from './context.js';
import type { SoakBusiness } from './stack.js';

const cursor = (value: unknown) => encodeURIComponent(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url'));
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const BAD_CURSORS = [
  'not-a-cursor',
  '%2F%2F%2F',
  cursor('{"createdAt":1}'),
  cursor(['not a date', 'x']),
  cursor(['2024-01-01T00:00:00.000Z', 'a\u0000b']),
  cursor(['+275760-09-13T00:00:00.000Z', 'x']),
  cursor(['2024-01-01T00:00:00.000Z', 5]),
  cursor(['2024-01-01T00:00:00.000Z', 'x'.repeat(5000)]),
  'A'.repeat(4000),
];
const INVALID = validation('Validation failed');
const UNKNOWN_ID = 'sess_0000000000000000000000';

type Attempt = (api: SoakClient, biz: SoakBusiness, other: SoakBusiness) => Promise<unknown>;
/** `FRESH` in a path or header becomes a new UUID on each send (the pay limit counts per session id). */
const fresh = (text: string) => text.replaceAll('FRESH', () => randomUUID());
const send = (method: string, path: string, opts: RequestOptions): Attempt => (api, biz) =>
  api.request(method, fresh(path), { key: biz.key, ...opts, headers: Object.fromEntries(Object.entries(opts.headers ?? {}).map(([k, v]) => [k, fresh(v)])) });

const ATTEMPTS: Attempt[] = [
  send('POST', '/api/checkout/sessions', { rawBody: '{"description": "Order", "items": [', headers: { 'Content-Type': 'application/json' }, accept: [validation('Request body must be valid JSON')] }),
  send('POST', '/api/checkout/sessions', { rawBody: nested(5000), headers: { 'Content-Type': 'application/json' }, accept: [validation()] }),
  send('POST', '/api/withdrawals', { rawBody: `${'['.repeat(20000)}${']'.repeat(20000)}`, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'FRESH' }, accept: [validation()] }),
  send('PUT', '/api/webhooks/wh_soakunknown', { rawBody: nested(3000), headers: { 'Content-Type': 'application/json' }, accept: [validation(), notFound()] }),
  send('POST', '/api/refunds', { rawBody: JSON.stringify({ checkoutSessionId: UNKNOWN_ID }), headers: { 'Content-Type': 'text/plain' }, accept: [validation('Content-Type must be application/json')] }),
  send('POST', '/api/checkout/sessions', { body: sessionBody({ description: 'NUL \u0000 byte' }), accept: [INVALID] }),
  send('POST', '/api/webhooks', { body: { url: 'https://example.com/\u0000', events: ['*'] }, accept: [INVALID, validation()] }),
  send('POST', '/api/checkout/sessions', { rawBody: Buffer.from([0x7b, 0x22, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]), headers: { 'Content-Type': 'application/json' }, accept: ANY_4XX }),
  send('POST', '/api/checkout/sessions', { rawBody: 'null', headers: { 'Content-Type': 'application/json' }, accept: ANY_4XX }),
  send('POST', '/api/checkout/sessions', { rawBody: 'x'.repeat(1024 * 1024 + 10), headers: { 'Content-Type': 'application/json' }, accept: [validation('Request body must not exceed 1 MB'), 413] }),
  send('GET', '/api/withdrawals/wd_%00', { accept: [notFound()], offDocument: true }),
  send('GET', '/api/checkout/sessions?status=%00', { accept: [INVALID] }),
  send('GET', `/api/refunds/ref_${'z'.repeat(3000)}`, { accept: [notFound()] }),
  send('GET', '/api/withdrawals/wd_soakunknown0000000000', { accept: [notFound('Withdrawal not found')] }),
  send('GET', '/api/refunds/ref_soakunknown0000000000', { accept: [notFound('Refund not found')] }),
  send('GET', '/api/checkout/sessions/FRESH', { accept: [notFound()] }),
  send('GET', '/api/reserves/res_soakunknown', { accept: [notFound('Reserve not found')] }),
  send('PATCH', '/api/webhooks/wh_soakunknown', { body: { description: 'x' }, accept: [notFound('Webhook endpoint not found')] }),
  send('DELETE', '/api/webhooks/wh_soakunknown', { accept: [notFound('Webhook endpoint not found')] }),
  send('POST', '/api/webhooks/retry/evt_soakunknown', { accept: [notFound()] }),
  send('POST', '/api/checkout/FRESH/pay', { body: payBody(), accept: [notFound()] }),
  send('POST', '/api/withdrawals', { body: { amount: -5, destinationType: 'wallet', destinationDetails: { walletEmail: 'a@b.example' } }, accept: [INVALID] }),
  send('POST', '/api/withdrawals', { body: { amount: 0.001, destinationType: 'wallet', destinationDetails: { walletEmail: 'a@b.example' } }, accept: [INVALID] }),
  send('POST', '/api/withdrawals', { body: { amount: 1e12, destinationType: 'wallet', destinationDetails: { walletEmail: 'a@b.example' } }, accept: [INVALID] }),
  send('POST', '/api/webhooks', { body: { url: 'http://insecure.example/hook', events: ['*'] }, accept: [INVALID, validation('URL must be HTTPS')] }),
  send('DELETE', '/api/balance', { accept: [error(405, 'method_not_allowed')] }),
  send('GET', '/api/balance', { key: 'mp_test_notarealkey000000000000000000', accept: [error(401, 'authentication_error', 'Invalid API key')] }),
  (api) => api.get('/api/withdrawals', { accept: [error(401, 'authentication_error')] }),
  ...BAD_CURSORS.map((c) => send('GET', `/api/checkout/sessions?limit=2&cursor=${c}`, { accept: [INVALID] })),
  ...BAD_CURSORS.map((c) => send('GET', `/api/reserves?limit=2&cursor=${c}`, { accept: [INVALID] })),
  // Another list's cursor: a session's position where a reserve's belongs.
  send('GET', `/api/reserves?cursor=${cursor(['2024-01-01T00:00:00.000Z', randomUUID()])}`, { accept: [INVALID] }),
  // A well-formed cursor that no list of this business gave out: a page (of this business's rows only) or a 400.
  send('GET', `/api/checkout/sessions?cursor=${cursor(['2030-01-01T00:00:00.000Z', randomUUID()])}`, { accept: [200, INVALID] }),
  // Another business's rows are unknown here, never readable or refundable.
  async (api, biz, other) => {
    if (!other.sessions.length) return;
    const id = other.sessions[other.sessions.length - 1];
    await api.get(`/api/checkout/sessions/${id}`, { key: biz.key, accept: [notFound()] });
    await api.post('/api/refunds', { checkoutSessionId: id }, { key: biz.key, accept: [notFound()] });
  },
  async (api, biz, other) => {
    if (!other.withdrawals.length) return;
    const id = other.withdrawals[other.withdrawals.length - 1];
    await api.get(`/api/withdrawals/${id}`, { key: biz.key, accept: [notFound('Withdrawal not found')] });
    await api.post(`/api/withdrawals/${id}/cancel`, undefined, { key: biz.key, accept: [notFound('Withdrawal not found')] });
  },
  // One Idempotency-Key, two different bodies.
  async (api, biz) => {
    const headers = { 'Idempotency-Key': randomUUID() };
    await api.post('/api/checkout/sessions', sessionBody(), { key: biz.key, headers, accept: [201] });
    await api.post('/api/checkout/sessions', sessionBody({ description: 'another body' }), { key: biz.key, headers, accept: [error(422, 'idempotency_error')] });
  },
];

export async function hostileLoop(ctx: SoakContext, biz: SoakBusiness): Promise<void> {
  const others = ctx.stack.businesses.filter((b) => b !== biz);
  for (let n = biz.index; !ctx.stopped(); n++) {
    await ATTEMPTS[n % ATTEMPTS.length](ctx.api(), biz, others[n % others.length] ?? biz);
    await sleep(50);
  }
}
