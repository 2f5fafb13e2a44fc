/**
 * A payment's completion, the step a pay call waits on under the business's balance lock, written in one
 * statement (src/modules/checkout/payment-completion.ts): what it writes, that it writes it once however
 * often and however concurrently it runs, and that it writes nothing for a session no longer `processing`.
 */
import { beginPayment, completePayment, failPayment, paymentToComplete } from '../../src/modules/checkout/index.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { createSession, paymentPostings, sql } from '../support/payments.js';
import { useStack } from '../support/use-stack.js';
import type { TestBusiness } from '../support/stack.js';

const stack = useStack();
const HOLD_MS = 3_600_000;

/** A session of `biz` moved to `processing`, as `beginPayment` leaves it for the charge. */
async function processing(biz: TestBusiness): Promise<string> {
  const session = await createSession(stack, biz.testKey);
  await beginPayment(stack.orm.em.fork(), session.id, { customerName: 'Ada Lovelace', cardBrand: 'visa', cardLast4: '4242' }, `attempt-${session.id}`);
  return session.id;
}

const complete = async (sessionId: string, chargeId = `ch_${sessionId}`, at = new Date()) => {
  const payment = (await paymentToComplete(stack.orm.em.fork(), sessionId))!;
  return stack.orm.em.fork().transactional((tx) => completePayment(tx, payment, chargeId, at));
};

async function written(sessionId: string) {
  const count = async (query: string) => (await sql(stack, query, [sessionId])).length;
  return {
    payments: await count(`select 1 from ledger_transactions where kind = 'payment' and reference_id = ?`),
    events: await count(`select 1 from events where type = 'checkout.succeeded' and payload->>'sessionId' = ?`),
    reserves: await count('select 1 from reserves where payment_id = ?'),
    releases: await count(`select 1 from outbox where message->>'workflowId' like '%' || (select id from reserves where payment_id = ?)`),
  };
}

const mine = async (biz: TestBusiness) => (await verifyLedger(stack.orm.em.fork())).problems.filter((p) => p.includes(biz.id));

describe('completing a payment', () => {
  it("writes the session's move, the balanced posting, the balance, checkout.succeeded, the reserve and its release's start, as the spec's figures say", async () => {
    // A business's first payment: it has no balance row until this completion makes one.
    const biz = await stack.business({ reserveBps: 1000, reserveHoldMs: HOLD_MS });
    const sessionId = await processing(biz);
    const at = new Date();
    expect(await complete(sessionId, 'ch_test_1', at)).toEqual({ status: 'completed', reserveId: expect.stringMatching(/^res_/), completed: true });

    const [session] = await sql(stack, 'select status, processor_charge_id, completed_at, subtotal, fee, total from checkout_sessions where id = ?', [sessionId]);
    expect(session).toMatchObject({ status: 'completed', processor_charge_id: 'ch_test_1' });
    expect(new Date(session.completed_at).getTime()).toBe(at.getTime());
    const [subtotal, fee, total] = [Number(session.subtotal), Number(session.fee), Number(session.total)];
    const reserve = Math.round(subtotal / 10);
    expect(await paymentPostings(stack, sessionId)).toEqual({ processor_clearing: -total, fee_revenue: fee, reserved: reserve, available: subtotal - reserve });
    const [balance] = await sql(stack, 'select available, reserved from balances where business_id = ? and livemode = false', [biz.id]);
    expect({ available: Number(balance.available), reserved: Number(balance.reserved) }).toEqual({ available: subtotal - reserve, reserved: reserve });

    const [event] = await sql(stack, `select payload, livemode from events where type = 'checkout.succeeded' and business_id = ?`, [biz.id]);
    expect(event.payload).toMatchObject({ sessionId, amount: total, customerName: 'Ada Lovelace', timestamp: at.toISOString() });
    const [held] = await sql(stack, 'select id, status, reserve_amount_in_cents, release_at from reserves where payment_id = ?', [sessionId]);
    expect({ status: held.status, amount: Number(held.reserve_amount_in_cents) }).toEqual({ status: 'active', amount: reserve });
    expect(new Date(held.release_at).getTime()).toBe(at.getTime() + HOLD_MS);
    const outbox = await sql(stack, `select message from outbox where message->>'eventId' = ? or message->>'workflowId' like '%' || ? order by id`, [
      (await sql(stack, `select id from events where payload->>'sessionId' = ?`, [sessionId]))[0].id,
      held.id,
    ]);
    expect(outbox.map((r: any) => r.message.kind)).toEqual(['event.fanout', 'workflow.start']);
    expect(outbox[1].message.args[0]).toEqual({ reserveId: held.id, releaseAt: new Date(at.getTime() + HOLD_MS).toISOString() });
    expect(await mine(biz)).toEqual([]);
  });

  it('run twice, or ten times at once, writes one of everything: one completion says it completed, the others that it already had', async () => {
    const biz = await stack.business();
    const sessionId = await processing(biz);
    const answers = await Promise.all(Array.from({ length: 10 }, () => complete(sessionId)));
    expect(answers.filter((a) => a.completed)).toHaveLength(1);
    expect(answers.every((a) => a.status === 'completed')).toBe(true);
    expect(await complete(sessionId)).toEqual({ status: 'completed', reserveId: null, completed: false });
    expect(await written(sessionId)).toEqual({ payments: 1, events: 1, reserves: 1, releases: 1 });
    expect(await mine(biz)).toEqual([]);
  });

  it('payments of one business completed at once each post once, and the balance is their sum', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    const sessions = await Promise.all(Array.from({ length: 8 }, () => processing(biz)));
    await Promise.all(sessions.map((id) => complete(id)));
    let sum = 0;
    for (const id of sessions) sum += Number((await sql(stack, 'select subtotal from checkout_sessions where id = ?', [id]))[0].subtotal);
    const [balance] = await sql(stack, 'select available, reserved from balances where business_id = ? and livemode = false', [biz.id]);
    expect({ available: Number(balance.available), reserved: Number(balance.reserved) }).toEqual({ available: sum, reserved: 0 });
    for (const id of sessions) expect(await written(id)).toEqual({ payments: 1, events: 1, reserves: 0, releases: 0 });
    expect(await mine(biz)).toEqual([]);
  });

  it('a session that failed is not completed, and nothing is written for it', async () => {
    const biz = await stack.business();
    const sessionId = await processing(biz);
    await stack.orm.em.fork().transactional((tx) => failPayment(tx, sessionId, { code: 'card_declined', message: 'Your card was declined.' }));
    expect(await complete(sessionId)).toEqual({ status: 'failed', reserveId: null, completed: false });
    expect(await written(sessionId)).toEqual({ payments: 0, events: 0, reserves: 0, releases: 0 });
  });
});
