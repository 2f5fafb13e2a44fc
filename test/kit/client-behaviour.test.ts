import { createPaymentsClient, PaymentsApiError, PaymentsConnectionError } from '@payments/client';

/**
 * What the client does around each request, against a scripted fetch: the key, idempotency keys,
 * retries and their waits, pagination and errors. test/kit/client-stack.test.ts runs it against the
 * real service.
 */
interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
  at: number;
}
type Answer = Response | Error | ((request: Request) => Response);

function scripted(answers: Answer[]) {
  const seen: Seen[] = [];
  const fetch = async (input: Request | string | URL) => {
    const request = input as Request;
    seen.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text(), at: Date.now() });
    const answer = answers.length > 1 ? answers.shift()! : answers[0];
    if (answer instanceof Error) throw answer;
    return typeof answer === 'function' ? answer(request) : answer.clone();
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'req_1', ...headers } });
const failure = (status: number, type: string, message: string, extra: object = {}) =>
  json(status, { success: false, error: { type, message, requestId: `req_${'a'.repeat(32)}`, ...extra } });
const refund = { id: 'ref_1', status: 'pending' };
const fast = { initialDelayMs: 1, maxDelayMs: 5 };

const client = (answers: Answer[], retry: object = fast) => {
  const s = scripted(answers);
  return { ...s, payments: createPaymentsClient({ apiKey: 'mp_test_key', baseUrl: 'https://pay.example/api/v1/', fetch: s.fetch, retry }) };
};

describe('@payments/client around each request', () => {
  it('sends the bearer key to the versioned base URL, and a fresh Idempotency-Key on each POST but not on GETs', async () => {
    const { payments, seen } = client([json(201, { success: true, data: refund })]);
    await payments.refunds.create({ checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e' });
    await payments.refunds.create({ checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e' });
    await payments.refunds.retrieve('ref_1');
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST https://pay.example/api/v1/refunds',
      'POST https://pay.example/api/v1/refunds',
      'GET https://pay.example/api/v1/refunds/ref_1',
    ]);
    expect(seen.every((s) => s.headers.get('Authorization') === 'Bearer mp_test_key')).toBe(true);
    const [first, second, get] = seen.map((s) => s.headers.get('Idempotency-Key'));
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).not.toBe(first);
    expect(get).toBeNull();
    expect(JSON.parse(seen[0].body)).toEqual({ checkoutSessionId: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e' });
  });

  it('retries a network error, a 503 and a 500 with the same key and body, then answers the data', async () => {
    const { payments, seen } = client([
      new TypeError('fetch failed'),
      failure(503, 'service_unavailable', 'The service is temporarily unavailable; please retry'),
      failure(500, 'api_error', 'Internal error'),
      json(201, { success: true, data: refund }),
    ]);
    await expect(payments.refunds.create({ checkoutSessionId: 'x' })).resolves.toEqual(refund);
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((s) => s.headers.get('Idempotency-Key'))).size).toBe(1);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
  });

  it('waits what Retry-After asks on a 429 before the retry', async () => {
    const { payments, seen } = client([
      new Response(JSON.stringify({ success: false, error: { type: 'rate_limit_exceeded', message: 'Too many requests', requestId: 'req_2', retryAfter: 1 } }), {
        status: 429,
        headers: { 'Content-Type': 'application/json', 'Retry-After': '1' },
      }),
      json(200, { success: true, data: refund }),
    ]);
    await payments.refunds.retrieve('ref_1');
    expect(seen).toHaveLength(2);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(990);
  });

  it('retries a 409 "in progress" with its key, but not other 4xx', async () => {
    const busy = client([failure(409, 'idempotency_error', 'A request with this Idempotency-Key is in progress'), json(201, { success: true, data: refund })]);
    await expect(busy.payments.refunds.create({ checkoutSessionId: 'x' })).resolves.toEqual(refund);
    expect(busy.seen).toHaveLength(2);
    expect(busy.seen[0].headers.get('Idempotency-Key')).toBe(busy.seen[1].headers.get('Idempotency-Key'));

    const invalid = client([failure(400, 'validation_error', 'Invalid session id', { errors: [{ path: ['checkoutSessionId'], message: 'Invalid session id' }] })]);
    const error = await invalid.payments.refunds.create({ checkoutSessionId: 'x' }).catch((e: unknown) => e);
    expect(invalid.seen).toHaveLength(1);
    expect(error).toBeInstanceOf(PaymentsApiError);
    expect(error).toMatchObject({
      status: 400,
      type: 'validation_error',
      message: 'Invalid session id',
      requestId: `req_${'a'.repeat(32)}`,
      errors: [{ path: ['checkoutSessionId'], message: 'Invalid session id' }],
    });
  });

  it('gives up after maxRetries: the last answer as a typed error, or a PaymentsConnectionError', async () => {
    const down = client([failure(503, 'service_unavailable', 'The service is temporarily unavailable; please retry')], { ...fast, maxRetries: 2 });
    await expect(down.payments.balance.retrieve()).rejects.toMatchObject({ name: 'PaymentsApiError', status: 503, type: 'service_unavailable' });
    expect(down.seen).toHaveLength(3);

    const unreachable = client([new TypeError('fetch failed')], { ...fast, maxRetries: 1 });
    const error = await unreachable.payments.balance.retrieve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentsConnectionError);
    expect((error as Error).message).toBe('GET https://pay.example/api/v1/balance: no answer after 2 attempt(s): fetch failed');
  });

  it('does not wait for a Retry-After past maxRetryAfterSeconds: the 429 is thrown with retryAfter', async () => {
    const tooLong = failure(429, 'rate_limit_exceeded', 'Too many requests', { retryAfter: 600 });
    tooLong.headers.set('Retry-After', '600');
    const { payments, seen } = client([tooLong], { ...fast, maxRetryAfterSeconds: 60 });
    const limited = await payments.refunds.retrieve('ref_1').catch((e: unknown) => e);
    expect(seen).toHaveLength(1);
    expect(limited).toMatchObject({ type: 'rate_limit_exceeded', retryAfter: 600 });
  });

  it('reads an answer without the envelope (a proxy page) as api_error with the status', async () => {
    const { payments } = client([new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway', headers: { 'X-Request-Id': 'req_proxy' } })], { maxRetries: 0 });
    await expect(payments.balance.retrieve()).rejects.toMatchObject({ status: 502, type: 'api_error', message: 'HTTP 502 Bad Gateway', requestId: 'req_proxy', errors: [] });
  });
});

describe('@payments/client lists', () => {
  const session = (n: number) => ({ id: `s${n}` });

  it('walks cursor lists (checkout sessions) by nextCursor, keeping the filters', async () => {
    const { payments, seen } = client([
      json(200, { success: true, data: { items: [session(1), session(2)], meta: {}, nextCursor: 'c2' } }),
      json(200, { success: true, data: { items: [session(3)], meta: {}, nextCursor: null } }),
    ]);
    const ids: string[] = [];
    for await (const s of payments.checkoutSessions.list({ status: 'completed', limit: 2 })) ids.push(s.id);
    expect(ids).toEqual(['s1', 's2', 's3']);
    expect(seen.map((s) => new URL(s.url).search)).toEqual(['?status=completed&limit=2', '?status=completed&limit=2&cursor=c2']);
  });

  it('walks page lists of each shape: refunds (data + pagination), withdrawals (meta.hasNextPage)', async () => {
    const refunds = client([
      json(200, { success: true, data: [refund], pagination: { page: 1, limit: 1, total: 2, totalPages: 2 } }),
      json(200, { success: true, data: [{ ...refund, id: 'ref_2' }], pagination: { page: 2, limit: 1, total: 2, totalPages: 2 } }),
    ]);
    expect((await refunds.payments.refunds.list({ limit: 1 }).toArray()).map((r) => r.id)).toEqual(['ref_1', 'ref_2']);
    expect(refunds.seen.map((s) => new URL(s.url).searchParams.get('page'))).toEqual(['1', '2']);

    const meta = (page: number, hasNextPage: boolean) => ({ total: 3, page, limit: 2, totalPages: 2, hasNextPage, hasPreviousPage: page > 1 });
    const withdrawals = client([
      json(200, { success: true, data: { items: [{ id: 'wd_1' }, { id: 'wd_2' }], meta: meta(1, true) } }),
      json(200, { success: true, data: { items: [{ id: 'wd_3' }], meta: meta(2, false) } }),
    ]);
    const pages: string[][] = [];
    for await (const page of withdrawals.payments.withdrawals.list({ status: 'pending' }).pages()) pages.push(page.map((w) => w.id));
    expect(pages).toEqual([['wd_1', 'wd_2'], ['wd_3']]);
  });

  it('walks balance transactions by meta.nextCursor, and asks for no page the loop does not reach', async () => {
    const { payments, seen } = client([json(200, { success: true, data: { items: [{ id: 'txn_1' }, { id: 'txn_2' }], meta: { hasMore: true, nextCursor: 'n' } } })]);
    for await (const txn of payments.balanceTransactions.list({ type: 'payment' })) if (txn.id === 'txn_1') break;
    expect(seen).toHaveLength(1);
  });
});

describe('options a caller forgot', () => {
  const fetch = (async () => json(200, {})) as typeof globalThis.fetch;

  it.each([
    ['no baseUrl (an unset PAYMENTS_API_URL)', { apiKey: 'mp_test_key', baseUrl: process.env.PAYMENTS_UNSET_URL_FOR_THIS_TEST }],
    ['an empty one', { apiKey: 'mp_test_key', baseUrl: '' }],
  ])('%s: a TypeError naming baseUrl and PAYMENTS_API_URL', (_, options) => {
    expect(() => createPaymentsClient({ ...options, fetch } as never)).toThrow(
      new TypeError(
        "createPaymentsClient: baseUrl is missing. Give the API's URL with its version, such as https://payments.example.com/api/v1 (the README's examples read it from PAYMENTS_API_URL: is that variable set?)",
      ),
    );
  });

  it('a baseUrl that is not an absolute URL: a TypeError saying which', () => {
    expect(() => createPaymentsClient({ apiKey: 'mp_test_key', baseUrl: 'localhost:3443/api/v1', fetch })).toThrow(
      new TypeError('createPaymentsClient: baseUrl must be an absolute URL such as https://payments.example.com/api/v1, not "localhost:3443/api/v1"'),
    );
  });

  it('no apiKey: a TypeError naming apiKey and PAYMENTS_API_KEY', () => {
    expect(() => createPaymentsClient({ baseUrl: 'https://pay.example/api/v1', fetch } as never)).toThrow(
      new TypeError(
        "createPaymentsClient: apiKey is missing. Give your business's key, mp_test_… or mp_live_… (the README's examples read it from PAYMENTS_API_KEY: is that variable set?)",
      ),
    );
  });

  it('no options at all: the baseUrl message first', () => {
    expect(() => (createPaymentsClient as (o?: unknown) => unknown)()).toThrow(/baseUrl is missing/);
  });
});
