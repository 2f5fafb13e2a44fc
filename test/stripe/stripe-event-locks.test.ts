/**
 * A Stripe event that moves a dispute takes its locks in the order every dispute move takes: the
 * business's balance, then the dispute's row (dispute.lifecycle.ts). Another move of the same dispute (an
 * operator's decision, the deadline's expiry) holding the balance and asking for the row must never find
 * the event holding the row and asking for the balance: PostgreSQL would end one of the two as a deadlock.
 */
import { jest } from '@jest/globals';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { eventually, sql } from '../support/payments.js';
import { disputeEvent } from './stripe-events.js';
import { useStripeStack } from './stripe-stack.js';

jest.setTimeout(120_000);

const { stack, biz, livePayment, postEvent } = useStripeStack();

const waitingOnBalance = async () =>
  (
    await sql<{ n: number }>(
      stack,
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query ilike '%from "balances"%for update%'`,
    )
  )[0].n > 0;

describe('the locks a Stripe event takes', () => {
  it('an escalation waits for the balance without holding the dispute, so a move that holds the balance and takes the dispute finishes, and so does the event', async () => {
    const paid = await livePayment();
    const dispute = { id: `du_locks${Date.now()}`, paymentIntent: paid.intent, amount: paid.total };
    const ours = (await postEvent(await disputeEvent('charge.dispute.created', { ...dispute, status: 'warning_needs_response' }))).body.data.disputeId;
    const escalationEvent = await disputeEvent('charge.dispute.funds_withdrawn', { ...dispute, status: 'needs_response' });

    let escalation: ReturnType<typeof postEvent> | undefined;
    await stack.orm.em.fork().transactional(async (tx) => {
      // Another move of the dispute, as decideDispute and expireDispute take their locks: the balance first...
      await tx.execute('select 1 from balances where business_id = ? and livemode = true for update', [biz.id]);
      escalation = postEvent(escalationEvent);
      await eventually('the escalation to wait on the balance', waitingOnBalance, 30_000);
      // ...then the dispute's row, which the event must not be holding while it waits.
      await tx.execute('select 1 from disputes where id = ? for update', [ours]);
    });

    const res = await escalation!;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ outcome: 'applied', disputeId: ours });
    expect((await sql(stack, 'select status from disputes where id = ?', [ours]))[0].status).toBe('needs_response');
    expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
  });
});
