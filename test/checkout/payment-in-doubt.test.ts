import { handOverPaymentsInDoubt } from '../../src/modules/checkout/index.js';
import { armFailpoint, enableFailpoints, failpointWaiting, releaseFailpoint, type FailpointName } from '../../src/ops/failpoints.js';
import { registry } from '../../src/ops/metrics.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { PaymentStatus } from '../../contracts/search-attributes.js';
import { createSession, eventually, pay, payBody, payToCompletion, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';

/**
 * The backstop owner of a payment in doubt: a session left `processing` after the run that paid it was
 * terminated (an operator's hand in the Temporal UI), which no open run will ever look at. The expiry
 * sweep hands it to its checkout workflow (signal-with-start: a new run), which settles it from the
 * processor's record of the charge, visibly: PaymentStatus, a metric and a log line.
 */
// A database of its own: the sweep's hand-over takes every session left processing in the database it
// reads, and the jest worker's shared one holds other files' too, each then settled beside this file's
// (in a full run under load its settled session was not completed in 150 s; 13 s alone). It also
// verifies the whole ledger, which other files may break on purpose.
const stack = useStack({}, { ownDatabase: 'in_doubt' });
const biz = useBusiness(stack);
beforeAll(() => enableFailpoints());

const statusOf = async (id: string) => (await sql(stack, 'select status, failure_code from checkout_sessions where id = ?', [id]))[0];
const settledCount = async (outcome: string) =>
  (await registry.getSingleMetric('payments_settled_total')?.get())?.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;

/** A pay stopped at `point` while its checkout run is terminated under it: the session is left `processing`, its owner gone. */
async function orphanedAt(point: FailpointName): Promise<string> {
  const session = await createSession(stack, biz.testKey);
  armFailpoint(point, session.id);
  const answer = pay(stack, session.id, payBody());
  await eventually(`the pay to stop at ${point}`, () => failpointWaiting(point, session.id) > 0, 90_000);
  await stack.temporal.workflow.getHandle(`checkout-${session.id}`).terminate('an operator terminated it');
  releaseFailpoint(point, session.id);
  const res = await answer;
  expect(res.status).toBe(200);
  expect(res.body.data.status).toBe('processing');
  expect((await statusOf(session.id)).status).toBe('processing');
  // Left so for over ten minutes: what the sweep looks for.
  await sql(stack, `update checkout_sessions set updated_at = now() - interval '11 minutes' where id = ?`, [session.id]);
  return session.id;
}

describe('a payment left in doubt by a terminated run', () => {
  it('charged before the run was terminated: handed over by the sweep, found at the processor, completed once', async () => {
    const sessionId = await orphanedAt('pay.after-charge');
    const settledBefore = await settledCount('completed');
    expect(await handOverPaymentsInDoubt(stack.orm.em.fork())).toContain(sessionId);
    await eventually('the session to be completed', async () => (await statusOf(sessionId)).status === 'completed', 150_000);
    const charges = await sql(stack, `select status from simulator_charges where idempotency_key = ?`, [sessionId]);
    expect(charges.map((c) => c.status)).toEqual(['succeeded']);
    expect(await sql(stack, `select kind from ledger_transactions where reference_id = ?`, [sessionId])).toEqual([{ kind: 'payment' }]);
    const owner = stack.temporal.workflow.getHandle(`checkout-${sessionId}`);
    expect(await owner.result()).toBe('closed');
    expect((await owner.describe()).typedSearchAttributes.get(PaymentStatus)).toBe('completed');
    expect(await settledCount('completed')).toBe(settledBefore + 1);
    expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
  }, 300_000);

  it('not charged: settled as failed with processing_error, and the key is closed so no charge can land after', async () => {
    const sessionId = await orphanedAt('pay.after-begin');
    const settledBefore = await settledCount('failed');
    expect(await handOverPaymentsInDoubt(stack.orm.em.fork())).toContain(sessionId);
    await eventually('the session to be failed', async () => (await statusOf(sessionId)).status === 'failed', 150_000);
    expect(await statusOf(sessionId)).toEqual({ status: 'failed', failure_code: 'processing_error' });
    expect(await sql(stack, `select status from simulator_charges where idempotency_key = ?`, [sessionId])).toEqual([{ status: 'not_found' }]);
    expect(await settledCount('failed')).toBe(settledBefore + 1);
    // A settled session is no longer processing: the sweep has nothing more of it.
    expect(await handOverPaymentsInDoubt(stack.orm.em.fork())).not.toContain(sessionId);
  }, 300_000);

  it('a charge the customer confirms in the browser (no card seen, so no brand) is awaited, not in doubt, until its session expires', async () => {
    const session = await createSession(stack, biz.testKey);
    // As the live browser flow leaves it while the customer is at Stripe: processing, no card brand, long since.
    await sql(stack, `update checkout_sessions set status = 'processing', card_brand = null, card_last4 = null, updated_at = now() - interval '11 minutes' where id = ?`, [session.id]);
    expect(await handOverPaymentsInDoubt(stack.orm.em.fork())).not.toContain(session.id);
    await sql(stack, `update checkout_sessions set expires_at = now() - interval '1 minute' where id = ?`, [session.id]);
    expect(await handOverPaymentsInDoubt(stack.orm.em.fork())).toContain(session.id);
  });

  it('a session processing for less than the hand-over time is left to its own run', async () => {
    const session = await createSession(stack, biz.testKey);
    armFailpoint('pay.after-charge', session.id);
    const answer = pay(stack, session.id, payBody());
    await eventually('the pay to stop after the charge', () => failpointWaiting('pay.after-charge', session.id) > 0, 90_000);
    expect(await handOverPaymentsInDoubt(stack.orm.em.fork())).not.toContain(session.id);
    releaseFailpoint('pay.after-charge', session.id);
    expect((await answer).body.data.status).toBe('completed');
  }, 150_000);
});

describe('what owning payments costs a payment that goes well', () => {
  it('a paid session\'s checkout workflow never schedules the in-doubt check: its one timer is the session\'s expiry', async () => {
    const session = await createSession(stack, biz.testKey);
    await payToCompletion(stack, session.id, payBody());
    const handle = stack.temporal.workflow.getHandle(`checkout-${session.id}`);
    await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    const timers = events.flatMap((e) => (e.timerStartedEventAttributes ? [Number(e.timerStartedEventAttributes.startToFireTimeout?.seconds)] : []));
    expect(timers).toHaveLength(1);
    expect(timers[0]).toBeGreaterThan(23 * 3600); // the 24-hour expiry, not IN_DOUBT_CHECK_MS
    // Two events more than before the owner (the patch's marker and its search attribute), no activity more.
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(1);
    expect(events).toHaveLength(25);
  }, 120_000);
});
