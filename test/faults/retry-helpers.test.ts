import type { HttpClient, HttpResponse } from '../support/http.js';
import type { Stack } from '../support/stack.js';
import { until } from './support/flows.js';
import { payAgainIfPending, type Call } from './support/load.js';

/**
 * The fault suite's own retries must not hide a failure: a customer retries a 503 (the documented
 * answer to retry, with Retry-After) and nothing else, and a wait whose reads keep failing fails with
 * their error.
 */
const pendingSession = { orm: { em: { getConnection: () => ({ execute: async () => [{ status: 'pending' }] }) } } } as unknown as Stack;
const call: Call = { op: 'pay', key: 'k', path: '/api/checkout/0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e/pay', body: {}, res: null, error: null };
const answering = (...answers: Partial<HttpResponse>[]) => {
  const sent: number[] = [];
  const http = {
    post: async () => {
      const answer = answers[Math.min(sent.length, answers.length - 1)];
      sent.push(answer.status!);
      return { headers: {}, body: {}, text: '', ...answer } as HttpResponse;
    },
  } as unknown as HttpClient;
  return { http, sent };
};

describe('a customer paying again after a fault', () => {
  it('fails at once on a 500: a server error is never retried', async () => {
    const { http, sent } = answering({ status: 500, text: 'boom' });
    await expect(payAgainIfPending(pendingSession, http, call)).rejects.toThrow(/answered 500, not a retryable 503/);
    expect(sent).toEqual([500]);
  });

  it('fails at once on a 503 without Retry-After, which does not say it may be retried', async () => {
    const { http } = answering({ status: 503 });
    await expect(payAgainIfPending(pendingSession, http, call)).rejects.toThrow(/answered 503, not a retryable 503/);
  });

  it('retries a 503 with Retry-After, and stops at the 200', async () => {
    const { http, sent } = answering({ status: 503, headers: { 'retry-after': '1' } }, { status: 200 });
    await payAgainIfPending(pendingSession, http, call);
    expect(sent).toEqual([503, 200]);
  }, 20_000);
});

describe('waiting for a condition', () => {
  it('fails with the error of a read that keeps failing, not a bare timeout', async () => {
    await expect(until('the session', () => Promise.reject(new Error('connect ECONNREFUSED')), 300)).rejects.toThrow(
      /timed out waiting for the session; the last read failed: connect ECONNREFUSED/,
    );
  });

  it('still waits through reads that fail for a while', async () => {
    let reads = 0;
    expect(await until('the session', async () => (++reads < 3 ? Promise.reject(new Error('not yet')) : 'done'), 5_000)).toBe('done');
  });
});
