/** Helpers for tests that pay sessions through the public pay endpoint. */
import type { Stack, TestBusiness, TestStack } from './stack.js';
import type { HttpResponse } from './http.js';
import { parseCard, type ParsedCard } from '../../src/modules/processor/card.rules.js';

export const CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expired: '4000000000000069',
  processingError: '4000000000000119',
  refundDeclined: '4000000000005126',
  otherValid: '5555555555554444',
} as const;

/** The demo cart: subtotal 4498, fee 160 (2.9 % + $0.30), total 4658; a 10 % reserve holds 450. */
/** A card as the pay call parses it (`parseCard`), for a test that tokenises without the API. */
export function parsedCard(number: string, expYear = 2099): ParsedCard {
  const card = parseCard({ number, expMonth: 12, expYear, cvc: '123' });
  if (!card) throw new Error(`${number} fails Luhn: the pay call refuses it before any processor`);
  return card;
}

export const sessionBody = (overrides: Record<string, unknown> = {}) => ({
  description: 'Order #1001',
  customer: { email: 'buyer@example.com' },
  items: [
    { name: 'T-shirt', price: 19.99, quantity: 2 },
    { name: 'Cap', price: 5, quantity: 1 },
  ],
  urls: { success: 'https://shop.example/ok?order=1001', failure: 'https://shop.example/failed', cancel: null },
  ...overrides,
});

export const payBody = (number: string = CARDS.success, overrides: Record<string, unknown> = {}) => ({
  card: { number, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '123' },
  name: 'Ada Lovelace',
  ...overrides,
});

export async function createSession(stack: TestStack, key: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await stack.http.post('/api/checkout/sessions', sessionBody(overrides), { key });
  if (res.status !== 201) throw new Error(`session create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export function pay(stack: TestStack, sessionId: string, body: unknown = payBody(), prefix = '/api') {
  return stack.http.post(`${prefix}/checkout/${sessionId}/pay`, body);
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls until `read` returns something truthy, and returns it (bounded: real workflows, not timers).
 * On timeout it throws, naming what it waited for: a falsy return let a caller that forgot to check it
 * go on as if the wait had succeeded. Give a description; the older form without one still works and is
 * described by the source text of `read`.
 */
export async function eventually<T>(description: string, read: () => Promise<T> | T, timeoutMs?: number): Promise<Truthy<T>>;
export async function eventually<T>(read: () => Promise<T> | T, timeoutMs?: number): Promise<Truthy<T>>;
export async function eventually<T>(
  first: string | (() => Promise<T> | T),
  second?: number | (() => Promise<T> | T),
  third?: number,
): Promise<Truthy<T>> {
  const [description, read, timeoutMs = 20_000] =
    typeof first === 'string' ? [first, second as () => Promise<T> | T, third] : [String(first).replace(/\s+/g, ' ').slice(0, 300), first, second as number | undefined];
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value as Truthy<T>;
    if (Date.now() > until) throw new EventuallyTimeout(description, timeoutMs, value);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export class EventuallyTimeout extends Error {
  constructor(description: string, timeoutMs: number, last: unknown) {
    super(`Timed out after ${timeoutMs} ms waiting for ${description} (last value: ${JSON.stringify(last) ?? String(last)})`);
  }
}

export async function sql<T = any>(stack: Pick<Stack, 'orm'>, query: string, params: unknown[] = []): Promise<T[]> {
  return stack.orm.em.getConnection().execute<T[]>(query, params);
}

/** The payment ledger transaction's entries of a session, by account. */
export async function paymentPostings(stack: TestStack, sessionId: string): Promise<Record<string, number>> {
  const rows = await sql<{ account: string; amount: string | number }>(
    stack,
    `select e.account, e.amount from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
     where t.kind = 'payment' and t.reference_id = ?`,
    [sessionId],
  );
  return Object.fromEntries(rows.map((r) => [r.account, Number(r.amount)]));
}

export async function paidSession(stack: TestStack, biz: TestBusiness, key = biz.testKey, overrides: Record<string, unknown> = {}) {
  const session = await createSession(stack, key, overrides);
  await payToCompletion(stack, session.id);
  return session;
}

/**
 * Pays a session and waits for the payment's end, whatever it is: the session's status then
 * (`completed`, `failed`, …) and the pay call's last answer. Pay answers `processing` when the payment
 * outlasts its 10 s wait (a loaded machine): the workflow still finishes it, and until its worker begins
 * it the session reads `pending`, so wait for the session itself rather than take that answer for the
 * outcome. The wait reads the database, not the API: a read through the merchant's key every moment spent
 * the key's rate limit (120 a minute) in a few seconds, and the test's own requests after it were answered
 * 429. A 503 with Retry-After is paid again, as its customer would (four times at most); any other 5xx fails.
 */
export async function payToEnd(stack: TestStack, sessionId: string, body: unknown = payBody()): Promise<{ status: string; res: HttpResponse }> {
  // A 503 with Retry-After is the one answer a customer pays again after (nothing was charged); a machine
  // too busy for the workflow to take the payment within the call's wait gives it.
  let res = await stack.http.post(`/api/checkout/${sessionId}/pay`, body, { expect5xx: true });
  let tries = 1;
  for (; res.status === 503 && res.headers['retry-after'] !== undefined && tries < 5; tries++) {
    await new Promise((r) => setTimeout(r, Number(res.headers['retry-after']) * 1000));
    res = await stack.http.post(`/api/checkout/${sessionId}/pay`, body, { expect5xx: true });
  }
  if (res.status >= 500) throw new Error(`pay ${sessionId} answered ${res.status}: ${res.text}`);
  // Paid again, it may find the session taken by its first call after all: that payment is waited for.
  const takenBefore = tries > 1 && res.status === 400 ? /in (processing|completed) status/.exec(res.body?.error?.message ?? '')?.[1] : undefined;
  const answered = res.status === 200 ? res.body.data.status : (takenBefore ?? null);
  if (answered !== 'processing') return { status: answered ?? `answered ${res.status}`, res };
  const status = await eventually(`session ${sessionId}'s payment to end`, async () => {
    const [row] = await sql<{ status: string }>(stack, 'select status from checkout_sessions where id = ?', [sessionId]);
    return !['pending', 'processing'].includes(row.status) && row.status;
  }, 60_000);
  return { status, res };
}

/** Pays a session and waits until it is `completed` (payToEnd); any other end fails, naming it. */
export async function payToCompletion(stack: TestStack, sessionId: string, body: unknown = payBody()) {
  const { status, res } = await payToEnd(stack, sessionId, body);
  if (status !== 'completed') {
    const [row] = await sql<{ failure_code: string | null }>(stack, 'select failure_code from checkout_sessions where id = ?', [sessionId]);
    throw new Error(`payment failed: ${status}, failure_code ${row?.failure_code ?? null} (pay answered ${res.status} ${res.text})`);
  }
  return res;
}
