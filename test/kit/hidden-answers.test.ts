/**
 * The kit tests' watch (test/kit/support/hidden-answers.ts) under @payments/client's real retries: every
 * answer the client retried into a success, and every connection that failed, is seen, whichever order
 * the client and the watch were made in.
 */
import { createPaymentsClient } from '@payments/client';
import { unexpected, watchAnswers } from './support/hidden-answers.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const balance = { success: true, data: { available: 0, pending: 0, reserved: 0, currency: 'USD' } };
const failure = (type: string, message: string) => ({ success: false, error: { type, message, requestId: 'req_1' } });

/** A service that gives `answers` in turn (an Error: the connection fails), then 200. */
function service(answers: (Response | Error)[]): typeof fetch {
  return async () => {
    const next = answers.shift() ?? json(200, balance);
    if (next instanceof Error) throw next;
    return next;
  };
}

const quickRetries = { maxRetries: 5, initialDelayMs: 1, maxDelayMs: 2 };

describe('watchAnswers', () => {
  it('sees the 5xx, 429, 409 "in progress" and failed connection a retrying client turned into a success', async () => {
    const flaky = service([
      json(500, failure('api_error', 'Internal error')),
      json(503, failure('service_unavailable', 'Unavailable'), { 'Retry-After': '0' }),
      json(429, failure('rate_limit_exceeded', 'Rate limit exceeded'), { 'Retry-After': '0' }),
      json(409, failure('idempotency_error', 'A request with this Idempotency-Key is in progress')),
      new TypeError('fetch failed'),
    ]);
    const watch = watchAnswers(() => flaky);
    const client = createPaymentsClient({ apiKey: 'mp_test_x', baseUrl: 'https://api.example.test/api/v1', fetch: watch.fetch, retry: quickRetries });
    await expect(client.balance.retrieve()).resolves.toMatchObject({ currency: 'USD' });
    expect(watch.take()).toEqual([
      'GET https://api.example.test/api/v1/balance answered 500',
      'GET https://api.example.test/api/v1/balance answered 503',
      'GET https://api.example.test/api/v1/balance answered 429',
      'GET https://api.example.test/api/v1/balance answered 409',
      'GET https://api.example.test/api/v1/balance got no answer: fetch failed',
    ]);
    expect(watch.take()).toEqual([]);
  });

  it('looks the fetch under it up at each request, so a fetch swapped in later is the one watched', async () => {
    let current = service([json(503, failure('service_unavailable', 'Unavailable'), { 'Retry-After': '0' })]);
    const watch = watchAnswers(() => current);
    const client = createPaymentsClient({ apiKey: 'mp_test_x', baseUrl: 'https://api.example.test/api/v1', fetch: watch.fetch, retry: quickRetries });
    await client.balance.retrieve();
    current = service([json(502, failure('api_error', 'Bad gateway'))]);
    await client.balance.retrieve();
    expect(watch.take()).toEqual([expect.stringMatching(/answered 503$/), expect.stringMatching(/answered 502$/)]);
  });
});

describe('unexpected', () => {
  it('lets through only what a test declared, each declaration once, and names a declared answer that never came', () => {
    const seen = ['POST /refunds answered 409', 'GET /balance answered 503'];
    expect(unexpected(seen, [/answered 409$/])).toEqual({ unexpected: ['GET /balance answered 503'], missing: [] });
    expect(unexpected(seen, [/answered 409$/, /answered 503$/])).toEqual({ unexpected: [], missing: [] });
    expect(unexpected([seen[0], seen[0]], [/answered 409$/])).toEqual({ unexpected: [seen[0]], missing: [] });
    expect(unexpected([], [/answered 429$/])).toEqual({ unexpected: [], missing: ['/answered 429$/'] });
  });
});
