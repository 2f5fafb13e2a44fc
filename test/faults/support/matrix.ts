/**
 * The fault matrix's cases: a payment, a refund or a withdrawal brought to one named step boundary (a
 * failpoint, src/ops/failpoints.ts) of the process that runs it, so that a fault lands exactly there.
 * Each case says how to make its record and send its request, what must be true at its point, and what
 * its end must be once the fault has passed: it ends within the bound, money moves once, and whoever
 * sent the request is told the truth (a 503 with Retry-After is a documented answer to retry; a 500
 * never is).
 */
import { randomUUID } from 'node:crypto';
import type { FailpointName } from '../../../src/ops/failpoints.js';
import type { HttpClient, HttpResponse } from '../../support/http.js';
import { payBody, sessionBody, sql } from '../../support/payments.js';
import { addWalletMethod, creditAvailable, testMode } from '../../support/seed.js';
import type { Stack, TestBusiness } from '../../support/stack.js';
import { walletWithdrawal } from './flows.js';

export const FAULTS = ['Temporal restart', 'worker SIGKILL', 'API SIGKILL', 'PostgreSQL restart'] as const;
export type Fault = (typeof FAULTS)[number];

/** How long after the fault has passed every case must have reached its end. */
export const END_BOUND_MS = 90_000;

export interface MatrixContext {
  stack: Stack;
  /** The client of the API process as it is now (a new one after the API was restarted). */
  http: () => HttpClient;
  /** A business with a test key, the wallet method and money to refund and withdraw. */
  business: () => Promise<TestBusiness>;
  fault: Fault;
}

/** The answer to the request a case sent, or why none came (the API was killed under it). */
export type Answer = { res: HttpResponse; error?: undefined } | { res?: undefined; error: string };

export interface Case {
  title: string;
  point: FailpointName;
  /** The process that stops at the point. */
  at: 'api' | 'worker';
  prepare: (ctx: MatrixContext) => Promise<Prepared>;
}

export interface Prepared {
  /** The failpoint's key for this case's record. */
  key: string;
  send: () => Promise<Answer>;
  /** What must hold while it waits at the point: that the point is where the case says. */
  atPoint: () => Promise<void>;
  /** After the fault: the sender's own retries, then the end and its money. Throws on any breach. */
  settle: (answer: Answer) => Promise<void>;
}

const answerOf = (sent: Promise<HttpResponse>): Promise<Answer> => sent.then((res) => ({ res }), (err: Error) => ({ error: err.message }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const statusOf = async (ctx: MatrixContext, table: string, id: string): Promise<string> =>
  (await sql(ctx.stack, `select status from ${table} where id = ?`, [id]))[0]?.status;

const amountOf = async (ctx: MatrixContext, table: string, id: string): Promise<number> =>
  Number((await sql(ctx.stack, `select amount_in_cents from ${table} where id = ?`, [id]))[0].amount_in_cents);

/**
 * What the processor simulator recorded for a refund or a withdrawal (`simulator_money_moves`): the moves
 * under the record's key, and for a refund how many refunds of its charge succeeded.
 */
async function processorMoves(ctx: MatrixContext, kind: 'refund' | 'withdrawal', id: string) {
  const moveKind = kind === 'refund' ? 'refund' : 'payout';
  const underKey = await sql<{ status: string; amount: string }>(ctx.stack, `select status, amount_in_cents as amount from simulator_money_moves where kind = ? and idempotency_key = ?`, [moveKind, id]);
  const ofCharge =
    kind === 'refund'
      ? (await sql<{ n: number }>(
          ctx.stack,
          `select count(*)::int as n from simulator_money_moves m join checkout_sessions s on s.processor_charge_id = m.charge_id
           join refunds r on r.checkout_session_id = s.id where r.id = ? and m.kind = 'refund' and m.status = 'succeeded'`,
          [id],
        ))[0].n
      : null;
  return { underKey: underKey.map((m) => ({ status: m.status, amount: Number(m.amount) })), ofCharge };
}

/** A first answer a fault may give: a success, the 503 envelope with Retry-After, or none when the API itself was killed. */
function expectCleanFirstAnswer(ctx: MatrixContext, answer: Answer, success: number): void {
  if (answer.error !== undefined) {
    if (ctx.fault !== 'API SIGKILL') throw new Error(`no answer, though the API was not killed: ${answer.error}`);
    return;
  }
  const { res } = answer;
  if (res.status === success) return;
  if (res.status === 503 && res.body?.error?.type === 'service_unavailable' && res.headers['retry-after'] === '1' && res.body.error.retryAfter === 1) return;
  throw new Error(`answered ${res.status}: ${res.text.slice(0, 500)}`);
}

/** Polls `read` until it returns a value `done` accepts; throws with the last value at the bound (a read that keeps failing fails with its error). */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = END_BOUND_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/** The statuses a session may be in next, from each: the truth a customer is told may only be behind, never wrong. */
const LATER: Record<string, string[]> = { pending: ['pending', 'processing', 'completed', 'failed'], processing: ['processing', 'completed', 'failed'] };

/**
 * The customer pays again after a 503 or a lost answer, honouring Retry-After and the session's 10 pays a
 * minute, until an answer other than 503 comes: it pays (200), or says the session cannot be paid, in a
 * status the session was really in.
 */
async function customerRetries(ctx: MatrixContext, sessionId: string): Promise<HttpResponse> {
  const deadline = Date.now() + END_BOUND_MS;
  for (;;) {
    const before = await statusOf(ctx, 'checkout_sessions', sessionId);
    const res = await ctx.http().post(`/api/checkout/${sessionId}/pay`, payBody(), { expect5xx: true, accept: [200, 400, 429, 503] });
    if (res.status >= 500 && res.status !== 503) throw new Error(`the retry answered ${res.status}: ${res.text}`);
    if (res.status === 200) return res;
    if (res.status === 400) {
      expect(res.body.error.type).toBe('validation_error');
      const told = /in (\w+) status/.exec(res.body.error.message)?.[1];
      const after = await statusOf(ctx, 'checkout_sessions', sessionId);
      expect([before, ...(LATER[before] ?? [])]).toContain(told);
      expect([told, ...(LATER[told!] ?? [])]).toContain(after);
      return res;
    }
    if (Date.now() > deadline) throw new Error(`the retries still answer ${res.status} after ${END_BOUND_MS / 1000} s: ${res.text}`);
    await sleep(Math.max(Number(res.headers['retry-after'] ?? 1) * 1000, 6_500));
  }
}

function payCase(title: string, point: FailpointName, at: 'api' | 'worker', whileHeld: string): Case {
  return {
    title,
    point,
    at,
    async prepare(ctx) {
      const biz = await ctx.business();
      const created = await ctx.http().post('/api/checkout/sessions', sessionBody(), { key: biz.testKey });
      const sessionId: string = created.body.data.id;
      return {
        key: sessionId,
        send: () => answerOf(ctx.http().post(`/api/checkout/${sessionId}/pay`, payBody(), { expect5xx: true })),
        atPoint: async () => expect(await statusOf(ctx, 'checkout_sessions', sessionId)).toBe(whileHeld),
        async settle(answer) {
          expectCleanFirstAnswer(ctx, answer, 200);
          const told = answer.res?.status === 200 ? (answer.res.body.data.status as string) : null;
          if (told === null) await customerRetries(ctx, sessionId);
          const end = await until(`session ${sessionId}`, () => statusOf(ctx, 'checkout_sessions', sessionId), (s) => s === 'completed' || s === 'failed' || s === 'pending');
          // Left payable (nothing began, and nothing will): the customer pays again, and it ends.
          const final = end === 'pending' ? (await customerRetries(ctx, sessionId), await until(`session ${sessionId}`, () => statusOf(ctx, 'checkout_sessions', sessionId), (s) => s === 'completed' || s === 'failed')) : end;
          if (told === 'completed' || told === 'failed') expect(final).toBe(told);
          // Charged at most once, and exactly when the session says it was paid.
          const charges = await sql(ctx.stack, `select count(*)::int as n from simulator_charges where idempotency_key = ? and status = 'succeeded'`, [sessionId]);
          const postings = await sql(ctx.stack, `select count(*)::int as n from ledger_transactions where kind = 'payment' and reference_id = ?`, [sessionId]);
          expect({ final, charges: charges[0].n, postings: postings[0].n }).toEqual({ final, charges: final === 'completed' ? 1 : 0, postings: final === 'completed' ? 1 : 0 });
        },
      };
    },
  };
}

/** A refund or a withdrawal: made with an Idempotency-Key, retried with it after a 503 or no answer, and ends completed. */
function moneyMoveCase(kind: 'refund' | 'withdrawal', title: string, point: FailpointName, at: 'api' | 'worker', whileHeld: string): Case {
  const table = kind === 'refund' ? 'refunds' : 'withdrawals';
  return {
    title,
    point,
    at,
    async prepare(ctx) {
      const biz = await ctx.business();
      let key = biz.id;
      let path = '/api/withdrawals';
      let body: unknown = walletWithdrawal(5);
      if (kind === 'refund') {
        const session = await ctx.http().post('/api/checkout/sessions', sessionBody(), { key: biz.testKey });
        const paid = await ctx.http().post(`/api/checkout/${session.body.data.id}/pay`, payBody());
        if (paid.body.data.status !== 'completed') throw new Error(`the session to refund was not paid: ${paid.text}`);
        key = session.body.data.id;
        path = '/api/refunds';
        body = { checkoutSessionId: key };
      }
      const idempotencyKey = randomUUID();
      const post = () => ctx.http().post(path, body, { key: biz.testKey, headers: { 'Idempotency-Key': idempotencyKey }, expect5xx: true });
      // The case's business makes this one record, so its rows are the record's.
      const recordIds = async () => (await sql(ctx.stack, `select id from ${table} where business_id = ?`, [biz.id])).map((r) => r.id as string);
      return {
        key,
        send: () => answerOf(post()),
        atPoint: async () => expect(await statusOf(ctx, table, (await recordIds())[0])).toBe(whileHeld),
        async settle(answer) {
          expectCleanFirstAnswer(ctx, answer, 201);
          let res = answer.res;
          const deadline = Date.now() + END_BOUND_MS;
          // The merchant's client retries with its key; while the first request's key is still held, 409 says so.
          while (res?.status !== 201) {
            if (Date.now() > deadline) throw new Error(`the ${kind} retries still answer ${res?.status}: ${res?.text}`);
            await sleep(1_000);
            res = await post().catch(() => undefined);
            if (res && ![201, 409, 503].includes(res.status)) throw new Error(`the ${kind} retry answered ${res.status}: ${res.text}`);
          }
          const id: string = res.body.data.id;
          expect(await recordIds()).toEqual([id]); // one record for one key
          await until(`${kind} ${id}`, () => statusOf(ctx, table, id), (s) => s === 'completed');
          // Paid once by the processor's own record: one move under the record's key, of its amount, and
          // (a refund) the only refund of its charge.
          const amount = await amountOf(ctx, table, id);
          expect(await processorMoves(ctx, kind, id)).toEqual({ underKey: [{ status: 'succeeded', amount }], ofCharge: kind === 'refund' ? 1 : null });
        },
      };
    },
  };
}

export const CASES: Case[] = [
  payCase('pay, its update not yet sent by the API (not admitted)', 'pay.before-update', 'api', 'pending'),
  payCase('pay, its update admitted but not accepted', 'pay.before-begin', 'worker', 'pending'),
  payCase('pay, beginPayment committed, its workflow task not completed', 'pay.after-begin', 'worker', 'processing'),
  payCase('pay, the card charged, completePayment not run', 'pay.after-charge', 'worker', 'processing'),
  payCase('pay, completePayment done, the pay call not answered', 'pay.before-answer', 'api', 'completed'),
  moneyMoveCase('refund', 'refund, created and committed, its workflow start not sent', 'refund.after-create', 'api', 'pending'),
  moneyMoveCase('refund', 'refund, moved to processing, its workflow task not completed', 'refund.after-processing', 'worker', 'processing'),
  moneyMoveCase('refund', 'refund, refunded by the processor, completeRefund not run', 'refund.after-processor', 'worker', 'processing'),
  moneyMoveCase('withdrawal', 'withdrawal, created and committed, its workflow start not sent', 'withdrawal.after-create', 'api', 'pending'),
  moneyMoveCase('withdrawal', 'withdrawal, moved to processing, its workflow task not completed', 'withdrawal.after-processing', 'worker', 'processing'),
  moneyMoveCase('withdrawal', 'withdrawal, paid out by the processor, completeWithdrawal not run', 'withdrawal.after-payout', 'worker', 'processing'),
];

/** Arms, lists and releases the failpoints of one process over its admin port. */
export const failpoints = {
  async arm(adminOrigin: string, name: FailpointName, key: string): Promise<void> {
    const res = await fetch(`${adminOrigin}/failpoints/${name}/${encodeURIComponent(key)}`, { method: 'PUT' });
    if (res.status !== 200) throw new Error(`arming ${name} answered ${res.status}: ${await res.text()}`);
  },
  async reached(adminOrigin: string): Promise<Map<string, number>> {
    const res = await fetch(`${adminOrigin}/failpoints`);
    const points = (await res.json()) as { id: string; waiting: number }[];
    return new Map(points.map((p) => [p.id, p.waiting]));
  },
  async releaseAll(adminOrigin: string): Promise<void> {
    for (const id of (await failpoints.reached(adminOrigin)).keys()) await fetch(`${adminOrigin}/failpoints/${id}`, { method: 'DELETE' });
  },
};

/** Test helpers the fault suite's other files have for a money move's owner. */
export async function fundedBusiness(stack: Stack): Promise<TestBusiness> {
  const biz = await stack.business();
  await addWalletMethod(stack.orm, biz.id);
  await creditAvailable(stack.orm, testMode(biz.id), 100_000);
  return biz;
}
