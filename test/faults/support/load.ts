/**
 * Steady traffic against an API process while a fault happens: merchants create withdrawals and
 * checkout sessions, customers pay them, each POST under its own Idempotency-Key. Every answer is kept,
 * so a test can check that each one was clean (a success, or the 503 envelope) and then retry what
 * failed with the same key, as a client would.
 */
import { randomUUID } from 'node:crypto';
import type { NewBusiness } from '../../../src/modules/businesses/business.service.js';
import type { HttpClient, HttpResponse } from '../../support/http.js';
import { eventually, payBody, sessionBody, sql } from '../../support/payments.js';
import { addWalletMethod, creditAvailable, testMode } from '../../support/seed.js';
import type { Stack, TestBusiness } from '../../support/stack.js';
import { walletWithdrawal } from './flows.js';

export interface Call {
  op: 'withdrawal' | 'session' | 'pay';
  key: string;
  path: string;
  body: unknown;
  /** The answer, or the transport error when there was none (the connection dropped). */
  res: HttpResponse | null;
  error: string | null;
}

export const SERVICE_UNAVAILABLE = {
  type: 'service_unavailable',
  message: 'The service is temporarily unavailable; please retry',
  requestId: expect.stringMatching(/^req_/),
  retryAfter: 1,
};

/** An API process and a worker on `stack`, and a business with the money and the rate limit for the load. */
export async function serviceForLoad(stack: Stack, overrides: Partial<NewBusiness> = {}) {
  const worker = await stack.processes.worker();
  const api = await stack.processes.api();
  const biz = await stack.business({ rateLimitTier: 'enterprise', rateLimitPerMinute: 6_000, rateLimitBurst: 6_000, ...overrides });
  await addWalletMethod(stack.orm, biz.id);
  await creditAvailable(stack.orm, testMode(biz.id), 1_000_000);
  return { worker, api, http: stack.client(api.origin), biz };
}

export function startLoad(http: HttpClient, biz: TestBusiness, opts: { clients?: number; pauseMs?: number } = {}) {
  const calls: Call[] = [];
  let stopped = false;
  const post = async (op: Call['op'], path: string, body: unknown, apiKey?: string): Promise<Call> => {
    const key = randomUUID();
    const call: Call = { op, key, path, body, res: null, error: null };
    calls.push(call);
    const headers: Record<string, string> = apiKey ? { 'Idempotency-Key': key } : {};
    try {
      // The fault makes 503s on purpose: the test asserts each answer is a success or the 503 envelope.
      call.res = await http.post(path, body, { key: apiKey, headers, expect5xx: true });
    } catch (err) {
      call.error = (err as Error).message;
    }
    return call;
  };

  // A pay call may wait up to 10 s for its outcome; the customer's wait does not hold up the merchant.
  const payments: Promise<Call>[] = [];
  async function client(n: number): Promise<void> {
    while (!stopped) {
      if (n % 2 === 0) await post('withdrawal', '/api/withdrawals', walletWithdrawal(1), biz.testKey);
      else {
        const session = await post('session', '/api/checkout/sessions', sessionBody(), biz.testKey);
        if (session.res?.status === 201) payments.push(post('pay', `/api/checkout/${session.res.body.data.id}/pay`, payBody()));
      }
      await new Promise((r) => setTimeout(r, opts.pauseMs ?? 100));
    }
  }
  const running = Promise.all(Array.from({ length: opts.clients ?? 4 }, (_, n) => client(n)));
  return {
    calls,
    stop: async () => {
      stopped = true;
      await running;
      await Promise.all(payments);
      return calls;
    },
  };
}

/** Each call got an answer, a success or the 503 envelope; the 503s are returned. */
export function expectCleanAnswers(calls: Call[]): Call[] {
  expect(calls.filter((c) => c.error !== null).map((c) => `${c.op}: ${c.error}`)).toEqual([]);
  const unclean = calls.filter((c) => ![200, 201, 503].includes(c.res!.status));
  expect(unclean.map((c) => `${c.op} ${c.res!.status} ${c.res!.text}`)).toEqual([]);
  const unavailable = calls.filter((c) => c.res!.status === 503);
  for (const c of unavailable) expect(c.res!.body).toEqual({ success: false, error: SERVICE_UNAVAILABLE });
  return unavailable;
}

/** Every write that answered 503 (a pay aside) retried with its own key at once, each until it succeeds. */
export async function retryFailedWrites(http: HttpClient, calls: Call[], apiKey: string): Promise<void> {
  // Each client retries on its own, at the same time as the others: one after another, n retries of up
  // to 90 s each could outlast the test's timeout and fail it without saying which request was late.
  await Promise.all(calls.filter((c) => c.op !== 'pay' && c.res!.status === 503).map(async (c) => (c.res = await retryUntilDone(http, c, apiKey))));
}

/**
 * A POST retried with its own key until it succeeds, as a client does after a 503. Meanwhile the only
 * other answers allowed are a 503, and a 409 while the key is still held: a request that failed because
 * the database went away could not give its key back, so the key stays claimed until its lease (60 s)
 * runs out.
 */
async function retryUntilDone(http: HttpClient, call: Call, apiKey: string, timeoutMs = 90_000): Promise<HttpResponse> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await http.post(call.path, call.body, { key: apiKey, headers: { 'Idempotency-Key': call.key }, expect5xx: true }).catch(() => null);
    if (res && res.status < 300) return res;
    if (res && res.status !== 503 && !(res.status === 409 && res.body.error?.type === 'idempotency_error')) {
      throw new Error(`${call.op} ${call.key} answered ${res.status} ${res.text}`);
    }
    if (Date.now() > until) throw new Error(`${call.op} ${call.key} still failing: ${res?.status} ${res?.text}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * A customer whose pay call got a 503 tries again, unless the session is no longer pending (the first
 * call's payment went through after all). A 503 carries Retry-After, the documented answer to retry; the
 * customer waits at least that, and 6 s between tries, inside the session's 10 pays a minute. Any other
 * answer ends the retries: a 200 pays, a 400 says the session cannot be paid (the status it names is
 * checked against the session), and a 500, or any 5xx but a 503, fails the test at once.
 */
// 150 s: after a Temporal restart a pay its own call fenced off can stay under way in the run for a minute or
// more (its first step's retries back off to a minute), and until it ends the run refuses the next pay, which is
// told to retry (true: nothing of either is charged). The customer keeps trying, as the answer says.
export async function payAgainIfPending(stack: Stack, http: HttpClient, call: Call, timeoutMs = 150_000) {
  const sessionId = call.path.split('/')[3];
  const until = Date.now() + timeoutMs;
  const statusOf = async () => (await sql(stack, 'select status from checkout_sessions where id = ?', [sessionId]))[0].status as string;
  for (;;) {
    if ((await statusOf()) !== 'pending') return;
    const res = await http.post(call.path, call.body, { expect5xx: true });
    if (res.status === 200) return;
    if (res.status === 400 && res.body.error?.type === 'validation_error') {
      const told = /in (\w+) status/.exec(res.body.error.message)?.[1];
      expect(['processing', 'completed', 'failed', 'cancelled']).toContain(told);
      return;
    }
    if (res.status !== 503 || res.headers['retry-after'] === undefined) throw new Error(`pay ${sessionId} answered ${res.status}, not a retryable 503: ${res.text}`);
    if (Date.now() > until) throw new Error(`pay ${sessionId} still answers 503 after ${timeoutMs / 1000} s: ${res.text}`);
    await new Promise((r) => setTimeout(r, Math.max(Number(res.headers['retry-after']) * 1000, 6_000)));
  }
}

/**
 * Every customer whose pay answered 503 pays again, all at once, where the session is still pending. A
 * customer told `processing` is not: that answer is given for a pending session only once its update is
 * accepted (in the workflow's history, so no restart loses it), and its payment must end, completed or
 * failed, charged only when completed (docs/decisions.md, "A payment whose outcome is not in by the deadline").
 */
export async function payAgainWherePending(stack: Stack, http: HttpClient, calls: Call[]): Promise<void> {
  await Promise.all(calls.filter((c) => c.op === 'pay' && c.res!.status === 503).map((c) => payAgainIfPending(stack, http, c)));
  const toldProcessing = calls.filter((c) => c.op === 'pay' && c.res!.status === 200 && c.res!.body?.data?.status === 'processing');
  await Promise.all(
    toldProcessing.map(async (call) => {
      const sessionId = call.path.split('/')[3];
      const ended = await eventually(`session ${sessionId}, told processing, to end`, async () => {
        const [row] = await sql(stack, 'select status from checkout_sessions where id = ?', [sessionId]);
        return row.status === 'completed' || row.status === 'failed' ? (row.status as string) : null;
      }, 90_000);
      const [charges] = await sql(stack, `select count(*)::int as n from simulator_charges where idempotency_key = ? and status = 'succeeded'`, [sessionId]);
      expect({ sessionId, ended, charges: charges.n }).toEqual({ sessionId, ended, charges: ended === 'completed' ? 1 : 0 });
    }),
  );
}
