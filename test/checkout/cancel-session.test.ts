import type { Logger } from 'pino';
import { checkoutWorkflow } from '../../workflows/checkout.js';
import { cancelSession, CheckoutSession } from '../../src/modules/checkout/index.js';

import { createLogger } from '../../src/log.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { checkoutWorkflowId } from '../../contracts/workflow-ids.js';

let log: Logger;

// Writes `completed` sessions with no payment (the states cancel must leave alone): a database of its own.
const stack = useStack({}, { fabricatesState: true });
const biz = useBusiness(stack);
beforeAll(async () => {
  log = createLogger('silent');
});

async function newSession(): Promise<string> {
  const res = await stack.http.post(
    '/api/checkout/sessions',
    { description: 'Order', customer: { email: 'buyer@example.com' }, items: [{ name: 'Tea', price: 4.5, quantity: 1 }] },
    { key: biz.testKey },
  );
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const deps = () => ({ em: stack.orm.em.fork(), temporal: stack.temporal, log });
const statusOf = async (id: string) => (await stack.orm.em.fork().findOneOrFail(CheckoutSession, { id })).status;

/** The session's checkout workflow, started as its first pay starts it (a session nobody paid has none). */
async function startCheckoutWorkflow(id: string) {
  const session = await stack.orm.em.fork().findOneOrFail(CheckoutSession, { id });
  return stack.temporal.workflow.start(checkoutWorkflow, {
    workflowId: checkoutWorkflowId(id),
    taskQueue: stack.config.temporal.taskQueue,
    args: [{ sessionId: id, expiresAt: session.expiresAt.toISOString() }],
  });
}

describe('cancelSession (the hosted page Cancel)', () => {
  it("moves a pending session to cancelled and ends its checkout workflow's timer", async () => {
    const id = await newSession();
    const handle = await startCheckoutWorkflow(id);
    const result = await cancelSession(deps(), id);
    expect(result?.cancelled).toBe(true);
    expect(result?.session.status).toBe('cancelled');
    expect(await statusOf(id)).toBe('cancelled');
    // The 24 h timer is over at once: the workflow saw the signal and closed.
    expect(await handle.result()).toBe('closed');
  });

  it('cancels a session that has no workflow (nobody tried to pay it) without a warning', async () => {
    const id = await newSession();
    const warnings: unknown[] = [];
    const result = await cancelSession({ ...deps(), log: { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger }, id);
    expect(result?.cancelled).toBe(true);
    expect(await statusOf(id)).toBe('cancelled');
    expect(warnings).toEqual([]);
  });

  it('is harmless when repeated', async () => {
    const id = await newSession();
    await cancelSession(deps(), id);
    const again = await cancelSession(deps(), id);
    expect(again?.cancelled).toBe(false);
    expect(again?.session.status).toBe('cancelled');
  });

  it.each(['processing', 'completed', 'failed'] as const)('leaves a %s session as it is', async (status) => {
    const id = await newSession();
    await stack.orm.em.fork().nativeUpdate(CheckoutSession, { id }, { status });
    const result = await cancelSession(deps(), id);
    expect(result?.cancelled).toBe(false);
    expect(result?.session.status).toBe(status);
    expect(await statusOf(id)).toBe(status);
  });

  it('finds no session for an unknown or malformed id', async () => {
    expect(await cancelSession(deps(), '0195d7a4-0000-7000-8000-000000000001')).toBeNull();
    expect(await cancelSession(deps(), 'not-a-uuid')).toBeNull();
  });
});
