import { jest } from '@jest/globals';
import { WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { checkoutWorkflowId } from '../../contracts/workflow-ids.js';
import { DomainError } from '../../src/domain/errors.js';
import { parse } from '../../src/domain/validation.js';
import { payInput } from '../../src/modules/checkout/pay.schemas.js';
import { payableSession, payCheckout, type PayDeps } from '../../src/modules/checkout/pay.service.js';
import { beginPayment } from '../../src/modules/checkout/index.js';
import { simulatorProcessor } from '../../src/modules/processor/index.js';
import { createSession, eventually, pay, payBody, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { expectRateLimited } from '../support/rate-limited.js';
import { armFailpoint, enableFailpoints, failpointWaiting, releaseFailpoint } from '../../src/ops/failpoints.js';
import { tooBusyToSay } from '../support/busy-temporal.js';

const stack = useStack();
const biz = useBusiness(stack);
beforeAll(() => enableFailpoints());

// The in-process worker charges through this same simulator object, so the spy sees every charge.
const charge = jest.spyOn(simulatorProcessor, 'charge');
beforeEach(() => charge.mockClear());

/** A pay call straight to the service, past the route's rate limit, in the route's steps: the session, the body, the payment. */
const payStraight = async (deps: PayDeps, sessionId: string, body: unknown) => payCheckout(deps, await payableSession(deps, sessionId), parse(payInput, body));

const chargesOf = (sessionId: string) => charge.mock.calls.filter(([request]) => request.idempotencyKey === sessionId).length;

async function moneyMovedFor(sessionId: string) {
  const payments = await sql(stack, `select 1 from ledger_transactions where kind = 'payment' and reference_id = ?`, [sessionId]);
  const events = await sql(stack, `select 1 from events where type = 'checkout.succeeded' and payload->>'sessionId' = ?`, [sessionId]);
  const reserves = await sql(stack, 'select 1 from reserves where payment_id = ?', [sessionId]);
  return { payments: payments.length, events: events.length, reserves: reserves.length };
}

describe('concurrent pay calls on one session', () => {
  it('20 calls at once over HTTP charge once; the rest are refused or rate-limited', async () => {
    const session = await createSession(stack, biz.testKey);
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(stack, session.id)));
    // Every answer is one of three, and each is checked whole: a 500, a 409 or a refusal with another
    // message is a fault here, not "one of the others".
    const paid = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 400);
    const limited = results.filter((r) => r.status === 429);
    expect({ paid: paid.length, refused: refused.length, limited: limited.length }).toEqual({ paid: 1, refused: 9, limited: 10 });
    expect(paid[0].body).toEqual({
      success: true,
      data: { sessionId: session.id, status: 'completed', redirectUrl: `https://shop.example/ok?order=1001&session_id=${session.id}` },
    });
    for (const r of refused) {
      expect(r.body).toEqual({
        success: false,
        error: {
          type: 'validation_error',
          message: expect.stringMatching(/^Cannot pay a checkout session in (processing|completed) status$/),
          requestId: expect.stringMatching(/^req_/),
        },
      });
    }
    for (const r of limited) expectRateLimited(r);
    expect(chargesOf(session.id)).toBe(1);
    expect(await moneyMovedFor(session.id)).toEqual({ payments: 1, events: 1, reserves: 1 });
  });

  it('20 calls at once past the rate limit (straight to the service) charge once', async () => {
    const session = await createSession(stack, biz.testKey);
    const deps = { orm: stack.orm, temporal: stack.temporal, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 10_000 };
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => payStraight(deps, session.id, payBody())));
    const paid = outcomes.filter((o) => o.status === 'fulfilled');
    expect(paid).toHaveLength(1);
    expect((paid[0] as PromiseFulfilledResult<{ status: string }>).value.status).toBe('completed');
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      const reason = (o as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(DomainError);
      expect(reason.code).toBe('session_not_payable');
    }
    expect(chargesOf(session.id)).toBe(1);
    expect(await moneyMovedFor(session.id)).toEqual({ payments: 1, events: 1, reserves: 1 });
  });
});

describe('many sessions paid at once, 20 calls each (straight to the service)', () => {
  // The race that told a paying customer "cannot pay": when a session's checkout workflow closed while the
  // paying call's client was still resending its update, the resend started a second run, which answered
  // that call "not payable". Each session must tell exactly its paying call that it completed.
  const busy = useBusiness(stack, { rateLimitTier: 'enterprise', rateLimitPerMinute: 1_000_000, rateLimitBurst: 1_000_000 });

  it('tells exactly one call per session that it completed, and every other call why it cannot pay', async () => {
    // 20 calls on one workflow pass Temporal's 10 updates in flight: the rest are answered RESOURCE_EXHAUSTED
    // and the client retries them for up to about 40 s. The wait outlasts that, so no call is left retrying
    // after this file (its retry would fail on the closed connection in whichever file runs next).
    const deps = { orm: stack.orm, temporal: stack.temporal, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 60_000 };
    for (let round = 0; round < 3; round++) {
      const sessions = await Promise.all(Array.from({ length: 12 }, () => createSession(stack, busy.testKey)));
      const tallies = await Promise.all(
        sessions.map(async (session) => {
          const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => payStraight(deps, session.id, payBody())));
          const told = outcomes.map((o) =>
            o.status === 'fulfilled' ? o.value.status : o.reason instanceof DomainError ? o.reason.code : String(o.reason),
          );
          return {
            completed: told.filter((t) => t === 'completed').length,
            notPayable: told.filter((t) => t === 'session_not_payable').length,
            other: told.filter((t) => t !== 'completed' && t !== 'session_not_payable'),
            charges: chargesOf(session.id),
            moved: await moneyMovedFor(session.id),
          };
        }),
      );
      for (const tally of tallies) {
        expect(tally).toEqual({ completed: 1, notPayable: 19, other: [], charges: 1, moved: { payments: 1, events: 1, reserves: 1 } });
      }
    }
  }, 180_000);
});

describe('a payment that outlasts the request', () => {
  it('answers processing when the outcome is not in by the deadline, and the workflow still finishes it', async () => {
    const session = await createSession(stack, biz.testKey);
    // The payment is held after its charge until the call has answered: it outlasts the request whatever the machine's pace.
    armFailpoint('pay.after-charge', session.id);
    const deps = { orm: stack.orm, temporal: stack.temporal, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 3_000 };
    try {
      expect(await payStraight(deps, session.id, payBody())).toEqual({ sessionId: session.id, status: 'processing', redirectUrl: null });
      // Told processing with its outcome unheard, the call asks the run, through the outbox, to settle the
      // payment should its update have been lost; a run still paying (this one) goes on and completes it.
      const asked = await sql(stack, `select count(*)::int as n from outbox where message->>'signalName' = 'settlePayment' and message->>'workflowId' = ?`, [checkoutWorkflowId(session.id)]);
      expect(asked).toEqual([{ n: 1 }]);
      // The answer does not wait for the charge: on a busy machine the payment reaches the failpoint after it.
      await eventually('the payment to be held after its charge', () => failpointWaiting('pay.after-charge', session.id) === 1);
    } finally {
      releaseFailpoint('pay.after-charge', session.id);
    }
    await eventually(`session ${session.id} to be completed by its workflow`, async () => {
      const [row] = await sql(stack, 'select status from checkout_sessions where id = ?', [session.id]);
      return row.status === 'completed';
    });
    expect(await moneyMovedFor(session.id)).toEqual({ payments: 1, events: 1, reserves: 1 });
  });
});

describe('a pay call whose answer from Temporal is lost after its update was accepted', () => {
  it('reads its payment\'s outcome from the database by the deadline: completed, charged once', async () => {
    const session = await createSession(stack, biz.testKey);
    // The update reaches the workflow and is accepted; then the call hears an error instead of the result.
    // Asked again by its id, the server says it does not know the update (as one restarted since would):
    // only the database can tell the call what came of it.
    const forgotten = () => ({ result: () => Promise.reject(new WorkflowNotFoundError('update not found', `checkout-${session.id}`, undefined)) });
    const lossy = {
      withDeadline: stack.temporal.withDeadline.bind(stack.temporal),
      workflow: {
        startUpdateWithStart: async (...args: Parameters<typeof stack.temporal.workflow.startUpdateWithStart>) => {
          await stack.temporal.workflow.startUpdateWithStart(...args);
          throw new Error('connection reset after the update was accepted');
        },
        getHandle: () => ({ getUpdateHandle: forgotten }),
      },
    } as unknown as PayDeps['temporal'];
    const deps = { orm: stack.orm, temporal: lossy, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 30_000 };
    expect(await payStraight(deps, session.id, payBody())).toMatchObject({ sessionId: session.id, status: 'completed' });
    expect(chargesOf(session.id)).toBe(1);
    expect(await moneyMovedFor(session.id)).toEqual({ payments: 1, events: 1, reserves: 1 });
  });
});

describe('a pay call told by Temporal that its request timed out, long before its own deadline', () => {
  // A busy server answers a long poll with its own DEADLINE_EXCEEDED, which the client reports as the
  // call's timeout. The call's update is held all the same, and its payment goes on.
  it('waits for its update\'s outcome by its id until its own deadline, and answers completed', async () => {
    const session = await createSession(stack, biz.testKey);
    // The payment waits before its first step, so the session is still pending when the error comes.
    armFailpoint('pay.before-begin', session.id);
    let told = false;
    const hasty = {
      withDeadline: stack.temporal.withDeadline.bind(stack.temporal),
      workflow: {
        getHandle: stack.temporal.workflow.getHandle.bind(stack.temporal.workflow),
        startUpdateWithStart: async (...args: Parameters<typeof stack.temporal.workflow.startUpdateWithStart>) => {
          void stack.temporal.workflow.startUpdateWithStart(...args).catch(() => undefined);
          await eventually('the payment to reach its first step', async () => failpointWaiting('pay.before-begin', session.id) === 1);
          told = true;
          setTimeout(() => releaseFailpoint('pay.before-begin', session.id), 500);
          throw new WorkflowUpdateRPCTimeoutOrCancelledError('Deadline exceeded (the server\'s own)');
        },
      },
      workflowService: stack.temporal.workflowService,
      options: stack.temporal.options,
    } as unknown as PayDeps['temporal'];
    const deps = { orm: stack.orm, temporal: hasty, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 30_000 };
    expect(await payStraight(deps, session.id, payBody())).toMatchObject({ sessionId: session.id, status: 'completed' });
    expect(told).toBe(true);
    expect(chargesOf(session.id)).toBe(1);
    expect(await moneyMovedFor(session.id)).toEqual({ payments: 1, events: 1, reserves: 1 });
  });
});

/** temporal.api.enums.v1.EventType WORKFLOW_EXECUTION_UPDATE_COMPLETED, as fetchHistory gives it. */
const UPDATE_COMPLETED = 43;

describe('a pay call answered 503 while Temporal, too busy to say, still held its update', () => {
  it('refuses its attempt first: the held update charges nothing afterwards, and the retry pays once', async () => {
    const session = await createSession(stack, biz.testKey);
    // The update is admitted and waits in the worker before its first step; the server, asked whether it
    // holds the update, does not answer in time.
    armFailpoint('pay.before-begin', session.id);
    const busy = tooBusyToSay(stack.temporal);
    const deps = { orm: stack.orm, temporal: busy, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 1_500 };
    await expect(payStraight(deps, session.id, payBody())).rejects.toMatchObject({ code: 'service_unavailable' });
    await eventually('the pay to be held before its begin', () => failpointWaiting('pay.before-begin', session.id) === 1);
    releaseFailpoint('pay.before-begin', session.id);
    // The held update runs to its end: refused by the session, so nothing moves and nothing is charged.
    const handle = stack.temporal.workflow.getHandle(checkoutWorkflowId(session.id));
    await eventually('the held pay to finish', async () =>
      (await handle.fetchHistory()).events!.some((e) => e.eventType === UPDATE_COMPLETED),
    );
    const [row] = await sql(stack, 'select status, payment_attempt_id, cardinality(refused_attempt_ids) as refused from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ status: 'pending', payment_attempt_id: null, refused: 1 });
    expect(chargesOf(session.id)).toBe(0);
    // The customer's retry, as the 503 said: paid once.
    const real = { ...deps, temporal: stack.temporal, waitMs: 30_000 };
    expect(await payStraight(real, session.id, payBody())).toMatchObject({ sessionId: session.id, status: 'completed' });
    expect(chargesOf(session.id)).toBe(1);
    expect(await moneyMovedFor(session.id)).toEqual({ payments: 1, events: 1, reserves: 1 });
  });
});

describe('beginPayment run again (its answer lost in a Temporal outage, its activity retried)', () => {
  const details = { customerName: 'Ada', cardBrand: 'visa', cardLast4: '4242' };

  it('tells the attempt that moved the session that it started, and any other attempt that it did not', async () => {
    const session = await createSession(stack, biz.testKey);
    const em = () => stack.orm.em.fork();
    expect(await beginPayment(em(), session.id, details, 'attempt-1')).toEqual({ started: true, status: 'processing' });
    // The same attempt again: it goes on to charge instead of leaving the session processing for good.
    expect(await beginPayment(em(), session.id, details, 'attempt-1')).toEqual({ started: true, status: 'processing' });
    // Another attempt (a second pay) is refused as before.
    expect(await beginPayment(em(), session.id, details, 'attempt-2')).toEqual({ started: false, status: 'processing' });
    const [row] = await sql(stack, 'select status, payment_attempt_id from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ status: 'processing', payment_attempt_id: 'attempt-1' });
  });
});

describe('beginPayment at the session expiry (the pay accepted just before, its first step just after)', () => {
  it('does not move a pending session past its expiresAt: it cancels it, and nothing is charged', async () => {
    const session = await createSession(stack, biz.testKey);
    await sql(stack, `update checkout_sessions set expires_at = now() - interval '1 millisecond' where id = ?`, [session.id]);
    const details = { customerName: 'Ada', cardBrand: 'visa', cardLast4: '4242' };
    expect(await beginPayment(stack.orm.em.fork(), session.id, details, 'attempt-late')).toEqual({ started: false, status: 'cancelled' });
    const [row] = await sql(stack, 'select status, payment_attempt_id from checkout_sessions where id = ?', [session.id]);
    expect(row).toEqual({ status: 'cancelled', payment_attempt_id: null });
    expect(await moneyMovedFor(session.id)).toEqual({ payments: 0, events: 0, reserves: 0 });
  });
});
