/**
 * What the history benchmark asks of each business, through the real HTTP API: the reads a merchant's
 * dashboard makes (lists with their totals, the event log, the balance and reserves) and the writes whose
 * cost must not grow with what came before (a session, its payment, a refund, a webhook recovery).
 */
import type { JsonClient } from '../open-loop.js';
import type { SeededHistory } from './seed.js';

export interface HistoryBusiness {
  label: 'A' | 'B';
  key: string;
  /** More test keys of the business: `GET /balance` allows each key 30 calls a minute, so its samples rotate over them. */
  balanceKeys: string[];
  seeded: SeededHistory;
  /** The `nextCursor` of page 49 of the session list (limit 20): what page 50 by cursor asks for. */
  cursor50: string;
  /** Sessions the create measurement made, for the pay measurement; then the ones it paid, for the refunds. */
  created: string[];
  paid: string[];
}

/** GET /balance's limit per key, less a margin: each balance key serves at most this many calls. */
export const BALANCE_CALLS_PER_KEY = 25;

type Answer = { status: number; body: any };

function expectStatus(what: string, res: Answer, status: number): void {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}, not ${status}: ${JSON.stringify(res.body).slice(0, 400)}`);
}

/** An answer as the report keeps it: a list's item count and totals as the API gave them, or a record as it is. */
function answerOf(body: any) {
  const data = body?.data;
  const items = Array.isArray(data) ? data : data?.items;
  if (!Array.isArray(items)) return data;
  return { items: items.length, ...(data?.meta ? { meta: data.meta } : {}), ...(body?.pagination ? { pagination: body.pagination } : {}) };
}

interface Read {
  name: string;
  path: (b: HistoryBusiness) => string;
  key?: (b: HistoryBusiness, i: number) => string;
}

export const READS: Read[] = [
  { name: 'session list: first page', path: () => '/api/checkout/sessions?limit=20' },
  // A rare status (2 % of sessions): its first page is found only by reading past the others, unless an index leads to it.
  { name: 'session list: status=refunded', path: () => '/api/checkout/sessions?status=refunded&limit=20' },
  { name: 'session list: search by e-mail', path: (b) => `/api/checkout/sessions?search=${encodeURIComponent(b.seeded.searchEmail)}&limit=20` },
  { name: 'session list: page 50 by page=', path: () => '/api/checkout/sessions?page=50&limit=20' },
  { name: 'session list: page 50 by cursor', path: (b) => `/api/checkout/sessions?limit=20&cursor=${b.cursor50}` },
  { name: 'withdrawal list: first page', path: () => '/api/withdrawals?limit=20' },
  { name: 'withdrawal list: status=failed', path: () => '/api/withdrawals?status=failed&limit=20' },
  { name: 'refund list: first page', path: () => '/api/refunds?limit=20' },
  { name: 'refund list: status=failed', path: () => '/api/refunds?status=failed&limit=20' },
  { name: 'event log: first page', path: () => '/api/webhooks/events?limit=20' },
  { name: 'event log: eventType=refund.created', path: () => '/api/webhooks/events?eventType=refund.created&limit=20' },
  { name: 'balance', path: () => '/api/balance', key: (b, i) => b.balanceKeys[Math.floor(i / BALANCE_CALLS_PER_KEY) % b.balanceKeys.length] },
  { name: 'reserve summary', path: () => '/api/reserves/summary' },
  { name: 'balance transactions: first page', path: () => '/api/balance/transactions?limit=20' },
];

export const readCall = (api: JsonClient, read: Read) => async (b: HistoryBusiness, i: number) => {
  const res = await api.get(read.path(b), read.key?.(b, i) ?? b.key);
  expectStatus(`${read.name} (${b.label})`, res, 200);
  return answerOf(res.body);
};

/** Follows `nextCursor` from page 1 to page 49's, whose cursor names page 50. */
export async function cursorOfPage50(api: JsonClient, b: HistoryBusiness): Promise<string> {
  let path = '/api/checkout/sessions?limit=20';
  for (let page = 1; page < 50; page++) {
    const res = await api.get(path, b.key);
    expectStatus(`session list page ${page} (${b.label})`, res, 200);
    const cursor = res.body.data.nextCursor;
    if (!cursor) throw new Error(`business ${b.label} has no page ${page + 1} of sessions`);
    path = `/api/checkout/sessions?limit=20&cursor=${cursor}`;
  }
  return new URL(path, 'https://x').searchParams.get('cursor')!;
}

const sessionBody = {
  description: 'History benchmark order',
  customer: { email: 'history-bench@example.com' },
  items: [
    { name: 'One', price: 10.5, quantity: 1 },
    { name: 'Two', price: 3.25, quantity: 2 },
  ],
};

export const createSession = (api: JsonClient) => async (b: HistoryBusiness) => {
  const res = await api.post('/api/checkout/sessions', sessionBody, b.key);
  expectStatus(`session create (${b.label})`, res, 201);
  b.created.push(res.body.data.id);
};

/** The hosted page's pay call with the success test card, on a session of its own (the call allows 10 a minute per session). */
export const paySession = (api: JsonClient) => async (b: HistoryBusiness) => {
  const id = b.created.shift();
  if (!id) throw new Error(`business ${b.label} has no fresh session left to pay`);
  const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '123' };
  const res = await api.post(`/api/checkout/${id}/pay`, { card, name: 'History Bench' });
  expectStatus(`pay (${b.label})`, res, 200);
  // Under load a payment may outlast the call's bounded wait (`processing`); its workflow finishes it.
  if (!['completed', 'processing'].includes(res.body.data.status)) throw new Error(`pay (${b.label}) ended ${res.body.data.status}`);
  b.paid.push(id);
};

export const createRefund = (api: JsonClient) => async (b: HistoryBusiness) => {
  const id = b.paid.shift();
  if (!id) throw new Error(`business ${b.label} has no paid session left to refund`);
  const res = await api.post('/api/refunds', { checkoutSessionId: id }, b.key);
  expectStatus(`refund create (${b.label})`, res, 201);
};

/** Recovery of the outage's failed deliveries: each call must re-send every one of them (the same work on A and B). */
export const recover = (api: JsonClient, since: string) => async (b: HistoryBusiness) => {
  const res = await api.post(`/api/webhooks/${b.seeded.endpoints.recovery}/recover`, { since }, b.key);
  expectStatus(`recovery (${b.label})`, res, 202);
  if (res.body.data.recovered !== b.seeded.recoveryFailedInWindow) {
    throw new Error(`recovery (${b.label}) re-sent ${res.body.data.recovered} events, not the ${b.seeded.recoveryFailedInWindow} seeded`);
  }
  return res.body.data;
};
