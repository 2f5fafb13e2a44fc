import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { checkoutStateQuery } from '../../contracts/checkout.js';
import { checkoutWorkflowId } from '../../contracts/workflow-ids.js';
import { DomainError } from '../../src/domain/errors.js';
import { parse } from '../../src/domain/validation.js';
import { createLogger } from '../../src/log.js';
import { startWorker } from '../../src/main/runtime.js';
import { payInput } from '../../src/modules/checkout/pay.schemas.js';
import { payableSession, payCheckout, type PayDeps } from '../../src/modules/checkout/pay.service.js';
import { simulatorProcessor } from '../../src/modules/processor/index.js';
import { failureConverterPath } from '../../src/temporal/payload-codec.js';
import { workflowInterceptorModules, workflowsPath } from '../../src/temporal/worker.js';
import { armFailpoint, enableFailpoints, failpointWaiting, releaseFailpoint } from '../../src/ops/failpoints.js';
import { createSession, eventually, payBody, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { tooBusyToSay } from '../support/busy-temporal.js';

/**
 * A pay call whose deadline passes on a busy machine: the worker slow to take the update's task, or the pay
 * ahead of it slow to move the session. Nothing is wrong, so nothing may be answered 503 (a "retry" the
 * customer has no reason for) while the truth is only late; a pay ahead that its own call fenced off is
 * still answered at once. The pay's own wait here is 1.5 s, the route's 10 s.
 */
jest.setTimeout(90_000);
const stack = useStack();
const biz = useBusiness(stack);
beforeAll(() => enableFailpoints());

const charge = jest.spyOn(simulatorProcessor, 'charge');
const chargesOf = (sessionId: string) => charge.mock.calls.filter(([request]) => request.idempotencyKey === sessionId).length;
const payStraight = async (deps: PayDeps, sessionId: string, body: unknown) => payCheckout(deps, await payableSession(deps, sessionId), parse(payInput, body));
const depsOn = (taskQueue: string, temporal = stack.temporal): PayDeps => ({ orm: stack.orm, temporal, taskQueue, processor: simulatorProcessor, waitMs: 1_500 });
const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const statusOf = async (sessionId: string) => ((await sql(stack, 'select status from checkout_sessions where id = ?', [sessionId]))[0] as { status: string }).status;

describe('a pay call whose update no worker accepts by its deadline', () => {
  it('waits while the server holds the update, is told processing once a worker accepts it, and is charged once', async () => {
    // Bundled beforehand, so the late worker polls within a second or two of its start even on a busy
    // machine, well inside the call's hold.
    const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, failureConverterPath, logger: quiet });
    const workflowBundlePath = path.join(process.env.TEST_ROOT!, `late-worker-bundle-${randomUUID().slice(0, 8)}.js`);
    writeFileSync(workflowBundlePath, code);
    const session = await createSession(stack, biz.testKey);
    // The session's workflow starts on a queue no worker polls yet: the update is admitted, not accepted.
    const taskQueue = `late-worker-${randomUUID().slice(0, 8)}`;
    const answer = payStraight(depsOn(taskQueue), session.id, payBody());
    const outcome = answer.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    // Past the deadline and the first check of whether the update is accepted (2 s): the old answer was a fence and a 503 here.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const late = await startWorker({
      config: { ...stack.config, temporal: { ...stack.config.temporal, taskQueue, workflowBundlePath } },
      orm: stack.orm,
      temporal: stack.temporal,
      log: createLogger('silent'),
      processor: simulatorProcessor,
    });
    try {
      expect(await outcome).toEqual({ value: expect.objectContaining({ sessionId: session.id, status: expect.stringMatching(/^(processing|completed)$/) }) });
      await eventually('the payment to complete', async () => (await statusOf(session.id)) === 'completed');
      expect(chargesOf(session.id)).toBe(1);
    } finally {
      await late.stop();
    }
  });
});

describe('a pay call refused behind another pay still under way at its deadline', () => {
  it('waits for the pay ahead to move the session and is told its status, not to retry', async () => {
    const session = await createSession(stack, biz.testKey);
    const deps = depsOn(stack.config.temporal.taskQueue);
    // The pay ahead is accepted and held before its first step, past the second call's deadline.
    armFailpoint('pay.before-begin', session.id);
    const ahead = payStraight({ ...deps, waitMs: 30_000 }, session.id, payBody());
    await eventually('the pay ahead to reach its first step', async () => failpointWaiting('pay.before-begin', session.id) === 1);
    const behind = payStraight(deps, session.id, payBody()).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    releaseFailpoint('pay.before-begin', session.id);
    expect(await ahead).toMatchObject({ sessionId: session.id, status: 'completed' });
    const told = await behind;
    expect(told).toEqual({ error: expect.any(DomainError) });
    expect((told as { error: DomainError }).error).toMatchObject({ code: 'session_not_payable', details: { params: { status: expect.stringMatching(/^(processing|completed)$/) } } });
    expect(chargesOf(session.id)).toBe(1);
  });

  it('is told to retry when the pay ahead was fenced off by its own call, and the retry pays once', async () => {
    const session = await createSession(stack, biz.testKey);
    armFailpoint('pay.before-begin', session.id);
    // The pay ahead's call hears nothing and cannot learn whether its update was accepted: it fences its
    // attempt off and answers 503, while its update waits in the worker before its first step.
    const blind = tooBusyToSay(stack.temporal);
    const deps = depsOn(stack.config.temporal.taskQueue);
    await expect(payStraight(depsOn(deps.taskQueue, blind), session.id, payBody())).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(failpointWaiting('pay.before-begin', session.id)).toBe(1);
    // Refused behind the fenced pay, which will never move the session: told to retry, without the hold.
    await expect(payStraight(deps, session.id, payBody())).rejects.toMatchObject({ code: 'service_unavailable' });
    releaseFailpoint('pay.before-begin', session.id);
    expect(await statusOf(session.id)).toBe('pending');
    await eventually('the fenced pay to run to nothing', async () => {
      const handle = stack.temporal.workflow.getHandle(checkoutWorkflowId(session.id));
      return (await handle.query(checkoutStateQuery).catch(() => 'unknown')) === 'awaiting_payment';
    });
    expect(await payStraight({ ...deps, waitMs: 30_000 }, session.id, payBody())).toMatchObject({ status: 'completed' });
    expect(chargesOf(session.id)).toBe(1);
  });
});
