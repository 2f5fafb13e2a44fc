/**
 * A failed refund gives each reserve back its own share, so a loop of "refund, it fails" can never turn
 * held money into money the merchant may withdraw. The refund-failure card
 * (4000000000005126) pays normally and declines every refund.
 */
import type { Caller } from '../../src/modules/businesses/index.js';
import { verifyLedger } from '../../src/modules/ledger/index.js';
import { createRefund } from '../../src/modules/refunds/refund.service.js';
import { disputeBlockingRefund } from '../../src/modules/disputes/index.js';

import { CARDS, createSession, eventually, payToCompletion, payBody, sql } from '../support/payments.js';
import { balanceOf, creditAvailable, testMode } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';
import { reserveReleaseAgainWorkflowId, reserveReleaseWorkflowId } from '../../contracts/workflow-ids.js';

const stack = useStack();

// The demo cart: subtotal 4498 + fee 160 = total 4658. With the whole subtotal held (reserveBps 10 000),
// each payment leaves `available` as it was and holds 4498 in a reserve of its own.
const TOTAL = 4658;
const HELD = 4498;

async function declinedRefundSession(biz: TestBusiness) {
  const session = await createSession(stack, biz.testKey);
  await payToCompletion(stack, session.id, payBody(CARDS.refundDeclined));
  return session;
}

const reservesOf = (biz: TestBusiness) =>
  sql(stack, `select id, status, reserve_amount_in_cents::int as reserve, consumed_amount_in_cents::int as consumed,
                     released_amount_in_cents::int as released, release_at, released_at
              from reserves where business_id = ? order by reserved_at, id`, [biz.id]);
const sharesOf = (refundId: string) =>
  sql(stack, 'select reserve_id, amount_in_cents::int as amount from refund_reserve_parts where refund_id = ?', [refundId]);

async function refundThatFails(biz: TestBusiness, sessionId: string): Promise<string> {
  const res = await stack.http.post('/api/refunds', { checkoutSessionId: sessionId }, { key: biz.testKey });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function failedRefund(biz: TestBusiness, id: string) {
  return eventually(`refund ${id} to fail`, async () => {
    const res = await stack.http.get(`/api/refunds/${id}`, { key: biz.testKey });
    if (res.body.data.status === 'completed') throw new Error(`refund ${id} completed; the card declines every refund`);
    return res.body.data.status === 'failed' ? res.body.data : null;
  });
}

async function expectLedgerVerified() {
  expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
}

describe('a refund that keeps failing', () => {
  it('leaves reserved unchanged, available no higher, and every reserve as it was, round after round', async () => {
    const biz = await stack.business({ reserveBps: 10_000 });
    const owner = testMode(biz.id);
    const sessions = [await declinedRefundSession(biz), await declinedRefundSession(biz), await declinedRefundSession(biz)];
    const reserves = await reservesOf(biz);
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 0, reserved: 3 * HELD });

    // Nothing available: 4498 from the oldest reserve and 160 from the next.
    const first = await refundThatFails(biz, sessions[0].id);
    expect(await sharesOf(first)).toEqual(
      expect.arrayContaining([{ reserve_id: reserves[0].id, amount: HELD }, { reserve_id: reserves[1].id, amount: TOTAL - HELD }]),
    );
    expect((await failedRefund(biz, first)).failureReason).toBe('Refund declined by the card issuer');
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: 0, reserved: 3 * HELD, refundsInFlight: 0 });
    expect(await reservesOf(biz)).toEqual(reserves);

    // Some available too: 300 from it, the rest from reserves; rounds one after another, then two at once.
    await creditAvailable(stack.orm, owner, 300);
    const before = await balanceOf(stack.orm, owner);
    for (const session of [sessions[1], sessions[2], sessions[0], sessions[1]]) {
      const id = await refundThatFails(biz, session.id);
      expect(await sharesOf(id)).toEqual([{ reserve_id: reserves[0].id, amount: TOTAL - 300 }]);
      await failedRefund(biz, id);
    }
    const together = [await refundThatFails(biz, sessions[0].id), await refundThatFails(biz, sessions[2].id)];
    for (const id of together) await failedRefund(biz, id);

    const after = await balanceOf(stack.orm, owner);
    expect(after).toMatchObject({ reserved: 3 * HELD, refundsInFlight: 0, pendingWithdrawal: 0 });
    expect(after.available).toBeLessThanOrEqual(before.available);
    expect(after).toEqual(before);
    expect(await reservesOf(biz)).toEqual(reserves);
    expect((await stack.http.get('/api/reserves/summary', { key: biz.testKey })).body.data).toMatchObject({
      totalReservedAmountInCents: 3 * HELD,
      activeReserveCount: 3,
    });
    // Each failure is one `refund.failed` posting, and none of them put reserve money into `available`.
    const postings = await sql(
      stack,
      `select t.reference_id, sum(e.amount) filter (where e.account = 'available')::int as available
       from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
       where t.kind = 'refund.failed' and t.business_id = ? group by t.reference_id`,
      [biz.id],
    );
    expect(postings).toHaveLength(7);
    expect(postings.filter((p) => p.reference_id === first)).toEqual([{ reference_id: first, available: null }]);
    for (const p of postings.filter((x) => x.reference_id !== first)) expect(p.available ?? 0).toBeLessThanOrEqual(300);
    await expectLedgerVerified();
  });
});

describe('a failed refund whose reserve is already due', () => {
  it('releases the share it gives back at once, through a release run of its own', async () => {
    const biz = await stack.business({ reserveBps: 10_000, reserveHoldMs: 4_000 });
    const owner = testMode(biz.id);
    const session = await declinedRefundSession(biz);
    const [reserve] = await reservesOf(biz);
    await creditAvailable(stack.orm, owner, TOTAL - HELD);

    // The refund is made now, taking the whole reserve, but its workflow starts only after the hold ended
    // (its outbox row stays claimed until the test lets it go): so it fails after `releaseAt`.
    const caller = { businessId: biz.id, livemode: false } as Caller;
    const { refund, outbox } = await stack.orm.em.fork().transactional((tx) => createRefund(tx, caller, { checkoutSessionId: session.id }, disputeBlockingRefund));
    expect((await reservesOf(biz))[0]).toMatchObject({ status: 'consumed', consumed: HELD });
    // The reserve's own release run reaches `releaseAt`, finds nothing held and finishes.
    expect(await stack.temporal.workflow.getHandle(reserveReleaseWorkflowId(reserve.id)).result()).toBe('nothing_to_release');
    expect(Date.now()).toBeGreaterThanOrEqual(new Date(reserve.release_at).getTime());

    await sql(stack, 'update outbox set claimed_until = null where id = ?', [outbox.id]);
    await failedRefund(biz, refund.id);
    // The failure's transaction wrote the run's start to the outbox; the relay dispatches it after the commit.
    const again = stack.temporal.workflow.getHandle(reserveReleaseAgainWorkflowId(reserve.id, refund.id));
    await eventually('the release run started by the failed refund', () => again.describe().then(() => true, () => false));
    expect(await again.result()).toBe('released');
    const released = (await stack.http.get(`/api/reserves/${reserve.id}`, { key: biz.testKey })).body.data;
    expect(released).toMatchObject({ status: 'released', releasedAmountInCents: HELD, releaseAt: new Date(reserve.release_at).toISOString() });
    expect(Date.parse(released.releasedAt)).toBeGreaterThanOrEqual(Date.parse(released.releaseAt));
    // 158 credited came back from available, 4498 was given back to the reserve and then released.
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: TOTAL, reserved: 0, refundsInFlight: 0 });
    await expectLedgerVerified();
  });

  it('gives a share back before `releaseAt` to a reserve that then releases at its own time', async () => {
    const biz = await stack.business({ reserveBps: 10_000, reserveHoldMs: 10_000 });
    const owner = testMode(biz.id);
    const session = await declinedRefundSession(biz);
    const [reserve] = await reservesOf(biz);
    await creditAvailable(stack.orm, owner, TOTAL - HELD);
    const id = await refundThatFails(biz, session.id);
    await failedRefund(biz, id);
    expect(Date.now()).toBeLessThan(new Date(reserve.release_at).getTime());
    expect((await reservesOf(biz))[0]).toEqual(reserve);
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: TOTAL - HELD, reserved: HELD });

    expect(await stack.temporal.workflow.getHandle(reserveReleaseWorkflowId(reserve.id)).result()).toBe('released');
    expect(await balanceOf(stack.orm, owner)).toMatchObject({ available: TOTAL, reserved: 0 });
    await expectLedgerVerified();
  });
});
