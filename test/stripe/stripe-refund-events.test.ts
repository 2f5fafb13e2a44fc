/**
 * A refund Stripe fails after it had succeeded: Stripe's `refund.failed` and `charge.refund.updated` at the
 * acquirer endpoint (the mock's refund and event fixtures, given the state the test needs, signed as Stripe
 * signs them) move a `completed` refund to `failed` and put its money back, as a refund failing in flight
 * does; once, however often the failure is told.
 */
import { jest } from '@jest/globals';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { registry } from '../../src/ops/metrics.js';
import { eventually, sql } from '../support/payments.js';
import { balance } from '../support/disputes.js';
import { refundEvent } from './stripe-events.js';
import { useStripeStack } from './stripe-stack.js';

jest.setTimeout(120_000);

const { stack, biz, livePayment, postEvent } = useStripeStack();

const refundOf = async (id: string) => (await stack.http.get(`/api/refunds/${id}`, { key: biz.liveKey })).body.data;
const sessionOf = async (id: string) => (await stack.http.get(`/api/checkout/sessions/${id}`, { key: biz.liveKey })).body.data;
const refundsFailed = async () => (await registry.getSingleMetric('refunds_total')!.get()).values.find((v) => v.labels.outcome === 'failed')?.value ?? 0;
const eventsOf = async (refundId: string) => sql(stack, `select type from events where payload->>'refundId' = ? order by created_at, id`, [refundId]);

/** A live payment refunded through Stripe (the mock's refund: `succeeded`), once the refund is `completed`. */
async function completedRefund() {
  const paid = await livePayment();
  await livePayment(); // covers the refund's fee-inclusive total
  const before = await balance(stack, biz.liveKey);
  const created = await stack.http.post('/api/refunds', { checkoutSessionId: paid.sessionId }, { key: biz.liveKey });
  expect(created.status).toBe(201);
  const refund = await eventually('the refund completed', async () => {
    const r = await refundOf(created.body.data.id);
    return r.status === 'completed' ? r : null;
  });
  return { paid, refund, before };
}

describe('a refund Stripe fails after it succeeded', () => {
  it.each(['refund.failed', 'charge.refund.updated'] as const)('%s moves the completed refund to failed and puts its money back, once', async (type) => {
    const { paid, refund, before } = await completedRefund();
    const event = await refundEvent(type, { id: 're_late_failure', refundId: refund.id, status: 'failed', failureReason: 'expired_or_canceled_card' });
    const failedBefore = await refundsFailed();
    const res = await postEvent(event);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ eventId: event.id, outcome: 'applied', disputeId: null });
    expect(await refundOf(refund.id)).toMatchObject({ status: 'failed', failureReason: 'Refund failed at Stripe: expired_or_canceled_card' });
    // The session may be refunded again, and the balance is what it was before the refund.
    expect((await sessionOf(paid.sessionId)).status).toBe('completed');
    expect(await balance(stack, biz.liveKey)).toMatchObject({ availableInCents: before.availableInCents, reservedInCents: before.reservedInCents });
    expect((await eventsOf(refund.id)).map((e: any) => e.type)).toEqual(['refund.created', 'refund.completed', 'refund.failed']);
    expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);

    // Told again (a redelivery, or the other event of the same failure): nothing moves twice.
    const after = await balance(stack, biz.liveKey);
    expect((await postEvent(event)).body.data.outcome).toBe('duplicate');
    const other = await refundEvent(type === 'refund.failed' ? 'charge.refund.updated' : 'refund.failed', { id: 're_late_failure', refundId: refund.id, status: 'failed' });
    expect((await postEvent(other)).body.data.outcome).toBe('unchanged');
    expect(await balance(stack, biz.liveKey)).toEqual(after);
    expect((await eventsOf(refund.id)).map((e: any) => e.type)).toEqual(['refund.created', 'refund.completed', 'refund.failed']);
    // Counted once, with the event that moved it, after its commit.
    expect(await refundsFailed()).toBe(failedBefore + 1);
  });

  it('leaves a completed refund as it is when Stripe still says succeeded, and records a refund it never made as unmatched', async () => {
    const { refund } = await completedRefund();
    const standing = await refundEvent('charge.refund.updated', { id: 're_standing', refundId: refund.id, status: 'succeeded' });
    expect((await postEvent(standing)).body.data.outcome).toBe('unchanged');
    expect((await refundOf(refund.id)).status).toBe('completed');
    const foreign = await refundEvent('refund.failed', { id: 're_foreign', refundId: null, status: 'failed' });
    expect((await postEvent(foreign)).body.data.outcome).toBe('unmatched');
  });
});
