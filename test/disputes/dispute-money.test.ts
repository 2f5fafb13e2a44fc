/**
 * A chargeback's money on the real stack: the oldest reserves first, an available balance below zero
 * that refuses withdrawals until later payments repay it, and races with refunds and withdrawals of the
 * same business, none of which may move money twice or create any.
 */
import { DomainError } from '../../src/domain/errors.js';
import { WALLET_EMAIL, addWalletMethod, creditAvailable, testMode } from '../support/seed.js';
import { createSession, paidSession, sql } from '../support/payments.js';
import { balance, expectLedgerVerified, expectTransactionsSumToBalance, FEE, openDispute, TOTAL } from '../support/disputes.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack();

// The demo business: of each 4658 payment, 450 is held in a reserve, 4048 is available, 160 is the fee.
const AVAILABLE_SHARE = 4048;
const RESERVE = 450;

const withdraw = (key: string, cents: number) =>
  stack.http.post('/api/withdrawals', { amount: cents / 100, destinationType: 'wallet', destinationDetails: { walletEmail: WALLET_EMAIL } }, { key });
const reserves = async (businessId: string) =>
  sql(stack, `select id, status, consumed_amount_in_cents::int as consumed from reserves where business_id = ? order by reserved_at, id`, [businessId]);

describe('a chargeback', () => {
  it('takes available first, then the oldest reserves (partially_released, then consumed), and leaves no more owed than it must', async () => {
    const biz = await stack.business({ reserveBps: 5000 }); // half of each subtotal held: 2249 of 4498
    const paid = [];
    for (let i = 0; i < 4; i++) paid.push(await paidSession(stack, biz));
    // 4 × 2249 available; a withdrawal leaves 1000 of it.
    await addWalletMethod(stack.orm, biz.id);
    expect((await withdraw(biz.testKey, 4 * 2249 - 1000)).status).toBe(201);

    const { dispute } = await openDispute(stack, paid[3].id, { reason: 'fraudulent' });
    // 4658 + 1500 = 6158: 1000 from available, 5158 from the reserves, oldest first (2249, 2249, 660 of the third).
    expect([dispute.fromAvailableInCents, dispute.fromReservesInCents, dispute.owedInCents]).toEqual([1000, TOTAL + FEE - 1000, 0]);
    expect((await reserves(biz.id)).map((r) => [r.status, r.consumed])).toEqual([
      ['consumed', 2249],
      ['consumed', 2249],
      ['partially_released', 660],
      ['active', 0],
    ]);
    expect(await balance(stack, biz.testKey)).toMatchObject({ availableInCents: 0, reservedInCents: 4 * 2249 - 5158 });
    const parts = await sql(stack, 'select reserve_id, amount_in_cents::int as amount from dispute_reserve_parts where dispute_id = ? order by amount desc, reserve_id', [dispute.id]);
    expect(parts.map((p) => p.amount)).toEqual([2249, 2249, 660]);
    await expectTransactionsSumToBalance(stack, biz.testKey);
    await expectLedgerVerified(stack);
  });

  it('drives available below zero; withdrawals are refused until later payments repay it; GET /api/balance shows it', async () => {
    const biz = await stack.business();
    await addWalletMethod(stack.orm, biz.id);
    const session = await paidSession(stack, biz);
    const { dispute } = await openDispute(stack, session.id, { reason: 'fraudulent' });
    const owed = TOTAL + FEE - AVAILABLE_SHARE - RESERVE;
    expect(dispute.owedInCents).toBe(owed);
    expect(await balance(stack, biz.testKey)).toMatchObject({ availableInCents: -owed, reservedInCents: 0 });

    const refused = await withdraw(biz.testKey, 1);
    expect([refused.status, refused.body.error.message]).toEqual([400, 'Insufficient available balance']);

    // Two more payments: the first repays the debt and leaves the rest available.
    await paidSession(stack, biz);
    expect((await balance(stack, biz.testKey)).availableInCents).toBe(AVAILABLE_SHARE - owed);
    await paidSession(stack, biz);
    const available = 2 * AVAILABLE_SHARE - owed;
    expect((await balance(stack, biz.testKey)).availableInCents).toBe(available);
    expect((await withdraw(biz.testKey, available + 1)).status).toBe(400);
    expect((await withdraw(biz.testKey, available)).status).toBe(201);
    await expectTransactionsSumToBalance(stack, biz.testKey);
    await expectLedgerVerified(stack);
  });

  it('is taken in full for an amount below the total when the notice says so, once, however often the notice comes', async () => {
    const biz = await stack.business({ reserveBps: 0, disputeFeeCents: 2000 });
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    const first = await openDispute(stack, session.id, { amountInCents: 1234, reason: 'product_unacceptable' });
    const second = await openDispute(stack, session.id, { reason: 'general' });
    expect([first.opened, second.opened, second.dispute.id]).toEqual([true, false, first.dispute.id]);
    expect(first.dispute).toMatchObject({ amountInCents: 1234, feeInCents: 2000, fromAvailableInCents: 3234, reason: 'product_unacceptable' });
    expect((await balance(stack, biz.testKey)).availableInCents).toBe(2 * 4498 - 3234);
    const posted = await sql(stack, `select kind, count(*)::int as n from ledger_transactions where reference_id = ? group by kind order by kind`, [first.dispute.id]);
    expect(posted).toEqual([{ kind: 'dispute.fee', n: 1 }, { kind: 'dispute.funds_withdrawn', n: 1 }]);
    await expect(openDispute(stack, session.id, { amountInCents: TOTAL + 1 })).resolves.toMatchObject({ opened: false });
    const other = await paidSession(stack, biz);
    await expect(openDispute(stack, other.id, { amountInCents: TOTAL + 1 })).rejects.toThrow(DomainError);
  });

  it('is refused for a refunded session (the acquirer reverses the notice) and for one not paid', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await paidSession(stack, biz);
    const refunded = await paidSession(stack, biz);
    expect((await stack.http.post('/api/refunds', { checkoutSessionId: refunded.id }, { key: biz.testKey })).status).toBe(201);
    await expect(openDispute(stack, refunded.id)).rejects.toMatchObject({ code: 'dispute_session_refunded' });
    const pending = await createSession(stack, biz.testKey);
    await expect(openDispute(stack, pending.id)).rejects.toMatchObject({ code: 'dispute_session_not_completed' });
    await expect(openDispute(stack, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'session_not_found' });
    expect(await sql(stack, 'select id from disputes where business_id = ?', [biz.id])).toEqual([]);
  });
});

describe('races on one business', () => {
  it('a dispute and a refund of the same session, together: exactly one takes the money', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await creditAvailable(stack.orm, testMode(biz.id), 100_000); // enough for every refund, whoever wins
    const outcomes = [];
    for (let i = 0; i < 6; i++) {
      const session = await paidSession(stack, biz);
      const [refund, dispute] = await Promise.allSettled([
        stack.http.post('/api/refunds', { checkoutSessionId: session.id }, { key: biz.testKey }),
        openDispute(stack, session.id, { reason: 'fraudulent' }),
      ]);
      const refunded = refund.status === 'fulfilled' && refund.value.status === 201;
      const disputed = dispute.status === 'fulfilled';
      outcomes.push([refunded, disputed]);
      if (!refunded) expect(refund.status === 'fulfilled' && refund.value.body.error.message).toBe('Cannot refund a checkout session whose dispute is needs_response');
      if (!disputed) expect(dispute.status === 'rejected' && dispute.reason).toMatchObject({ code: 'dispute_session_refunded' });
      const moves = await sql(stack, `select count(*)::int as n from ledger_transactions where kind in ('refund.created', 'dispute.funds_withdrawn')
        and reference_id in (select id from refunds where checkout_session_id = ? union select id from disputes where checkout_session_id = ?)`, [session.id, session.id]);
      expect(moves[0].n).toBe(1);
    }
    for (const [refunded, disputed] of outcomes) expect(refunded !== disputed).toBe(true);
    await expectLedgerVerified(stack);
  });

  it('a chargeback amid concurrent withdrawals creates no money: each withdrawal is covered or refused', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await addWalletMethod(stack.orm, biz.id);
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push(await paidSession(stack, biz));
    const before = (await balance(stack, biz.testKey)).availableInCents; // 3 × 4498
    const [dispute, ...withdrawals] = await Promise.all([
      openDispute(stack, sessions[0].id, { reason: 'fraudulent' }),
      ...Array.from({ length: 6 }, () => withdraw(biz.testKey, 2000)),
    ]);
    const accepted = withdrawals.filter((w) => w.status === 201).length;
    for (const w of withdrawals.filter((w) => w.status !== 201)) expect(w.body.error.message).toBe('Insufficient available balance');
    const after = await balance(stack, biz.testKey);
    expect(after.availableInCents + after.pendingInCents).toBe(before - (TOTAL + FEE));
    expect(after.pendingInCents).toBe(accepted * 2000);
    expect(dispute.dispute.owedInCents).toBe(Math.max(0, -(after.availableInCents)));
    await expectTransactionsSumToBalance(stack, biz.testKey);
    await expectLedgerVerified(stack);
  });
});
