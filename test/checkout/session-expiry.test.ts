import { CheckoutSession } from '../../src/modules/checkout/index.js';

import { createSession, eventually, pay, payToCompletion, payBody, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { sessionExpiryWorkflowId } from '../../contracts/workflow-ids.js';

// Sessions that live two seconds, so that the sweep's real timer fires within the test.
const TTL_MS = 2_000;

const stack = useStack({ SESSION_TTL: `${TTL_MS}ms` });
const biz = useBusiness(stack);

const statusOf = async (id: string) => (await stack.orm.em.fork().findOneOrFail(CheckoutSession, { id })).status;

describe('session expiry (the sweep)', () => {
  it('cancels a session still pending at its expiresAt, and not before', async () => {
    const session = await createSession(stack, biz.testKey);
    expect(Date.parse(session.expiresAt) - Date.parse(session.createdAt)).toBe(TTL_MS);
    expect(await statusOf(session.id)).toBe('pending');
    const cancelled = await eventually(async () => (await statusOf(session.id)) === 'cancelled', 10_000);
    expect(cancelled).toBe(true);
    const [row] = await sql<{ updated_at: Date; expires_at: Date }>(stack, 'select updated_at, expires_at from checkout_sessions where id = ?', [
      session.id,
    ]);
    // Cancelled by the sweep at or after its expiry (the sweep wakes at the next expiresAt, a second apart at most).
    expect(new Date(row.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(row.expires_at).getTime());
    expect(new Date(row.updated_at).getTime() - new Date(row.expires_at).getTime()).toBeLessThan(5_000);
  });

  it('cancels many sessions that expire together in one sweep', async () => {
    const ids = await Promise.all(Array.from({ length: 30 }, async () => (await createSession(stack, biz.testKey)).id as string));
    const allCancelled = await eventually(async () => {
      const rows = await sql<{ n: number }>(stack, `select count(*)::int as n from checkout_sessions where id in (?) and status = 'cancelled'`, [ids]);
      return rows[0].n === ids.length;
    }, 10_000);
    expect(allCancelled).toBe(true);
  });

  it('leaves a paid session alone, past its expiresAt', async () => {
    const session = await createSession(stack, biz.testKey);
    // Two seconds is less than a loaded machine may take to begin the payment: give the pay a minute,
    // then put the paid session's expiresAt behind it again.
    await sql(stack, `update checkout_sessions set expires_at = now() + interval '1 minute' where id = ?`, [session.id]);
    await payToCompletion(stack, session.id);
    await sql(stack, `update checkout_sessions set expires_at = now() - interval '1 second' where id = ?`, [session.id]);
    // A session created after it expires later than it, so once the sweep has cancelled that one it has been by.
    const later = await createSession(stack, biz.testKey);
    expect(await eventually(async () => (await statusOf(later.id)) === 'cancelled', 10_000)).toBe(true);
    expect(await statusOf(session.id)).toBe('completed');
  });

  it('refuses to pay a session past its expiresAt, even before the sweep has come by', async () => {
    const session = await createSession(stack, biz.testKey);
    // Pretend the sweep is late: the session is still pending in the database, but expired.
    await sql(stack, `update checkout_sessions set expires_at = now() - interval '1 second' where id = ?`, [session.id]);
    const res = await pay(stack, session.id, payBody());
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatchObject({ type: 'validation_error', message: 'Cannot pay a checkout session in cancelled status' });
    expect(await statusOf(session.id)).toBe('cancelled');
    const charges = await sql(stack, `select 1 from ledger_transactions where kind = 'payment' and reference_id = ?`, [session.id]);
    expect(charges).toHaveLength(0);
  });

  it('is one workflow for the task queue, whatever the number of sessions', async () => {
    const sweep = await stack.temporal.workflow.getHandle(sessionExpiryWorkflowId(stack.config.temporal.taskQueue)).describe();
    expect(sweep.status.name).toBe('RUNNING');
    expect(sweep.type).toBe('sessionExpiryWorkflow');
  });
});
