/**
 * A won chargeback's reserve-funded part goes back to the reserve it came from while that reserve's
 * release date is still ahead (its hold resumes, and a release run of its own releases it at that date),
 * and to `available` once the date has passed; the rest of the amount returns to `available`. On a
 * database of its own: one reserve's release date is moved into the past by hand, which no payment does
 * (the alternative, a hold of seconds, would race the test's own steps on a loaded machine).
 */
import { enterDisputeDecision } from '../../src/modules/disputes/index.js';
import { reserveReleaseAgainWorkflowId } from '../../contracts/workflow-ids.js';
import { addWalletMethod, creditAvailable, testMode, WALLET_EMAIL } from '../support/seed.js';
import { eventually, paidSession, sql } from '../support/payments.js';
import { balance, balanceTransactions, expectLedgerVerified, expectTransactionsSumToBalance, FEE, openDispute, TOTAL } from '../support/disputes.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { ownDatabase: 'reinstatement' });

// Half of each subtotal (4498) held: 2249 in a reserve, 2249 available.
const HELD = 2249;

const reserves = (businessId: string) =>
  sql(stack, `select id, status, consumed_amount_in_cents::int as consumed from reserves where business_id = ? order by reserved_at, id`, [businessId]);

describe('a won chargeback funded by reserves', () => {
  it('returns each reserve its share while its release date is ahead, and to available a share whose date has passed', async () => {
    const biz = await stack.business({ reserveBps: 5000 });
    const older = await paidSession(stack, biz);
    const newer = await paidSession(stack, biz);
    // Nothing available: the chargeback's amount comes from the two reserves, oldest first, and the rest is owed.
    await addWalletMethod(stack.orm, biz.id);
    const withdrawal = await stack.http.post('/api/withdrawals', { amount: (2 * HELD) / 100, destinationType: 'wallet', destinationDetails: { walletEmail: WALLET_EMAIL } }, { key: biz.testKey });
    expect(withdrawal.status).toBe(201);
    const { dispute } = await openDispute(stack, newer.id, { reason: 'fraudulent' });
    expect([dispute.fromAvailableInCents, dispute.fromReservesInCents, dispute.owedInCents]).toEqual([0, 2 * HELD, TOTAL + FEE - 2 * HELD]);
    const [first, second] = await reserves(biz.id);
    expect([first.status, second.status]).toEqual(['consumed', 'consumed']);
    expect(first.id).toBe((await sql(stack, 'select id from reserves where payment_id = ?', [older.id]))[0].id);

    // The older reserve's release date passes; the newer one's (90 days) is still ahead.
    await sql(stack, `update reserves set release_at = now() - interval '1 minute' where id = ?`, [first.id]);
    const { dispute: won } = await enterDisputeDecision(stack.orm.em.fork(), stack.temporal, dispute.id, 'won');
    expect(won.status).toBe('won');

    expect(await reserves(biz.id)).toEqual([
      { id: first.id, status: 'consumed', consumed: HELD },
      { id: second.id, status: 'active', consumed: 0 },
    ]);
    expect(await sql(stack, 'select reserve_id, returned_in_cents::int as returned from dispute_reserve_parts where dispute_id = ? order by returned_in_cents', [dispute.id])).toEqual([
      { reserve_id: first.id, returned: 0 },
      { reserve_id: second.id, returned: HELD },
    ]);
    // Owed 1660 (the amount's last 160 and the fee); back: 2249 to the newer reserve, 2409 to available.
    expect(await balance(stack, biz.testKey)).toMatchObject({ availableInCents: TOTAL - HELD - (TOTAL + FEE - 2 * HELD), reservedInCents: HELD });
    const reversal = (await balanceTransactions(stack, biz.testKey)).filter((t) => t.type === 'dispute_reversal');
    expect(reversal.map((t) => [t.balanceType, t.netInCents]).sort()).toEqual([['available', TOTAL - HELD], ['reserved', HELD]]);

    // The newer reserve's share is released again at its own date, by a run of its own.
    const again = stack.temporal.workflow.getHandle(reserveReleaseAgainWorkflowId(second.id, dispute.id));
    await eventually('the release run of the share given back', () => again.describe().then(() => true, () => false));
    await expectTransactionsSumToBalance(stack, biz.testKey);
    await expectLedgerVerified(stack);
  });

  it('returns to available what came from available, when no reserve paid the amount', async () => {
    const biz = await stack.business({ reserveBps: 5000 });
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    await creditAvailable(stack.orm, testMode(biz.id), 500);
    // 2 × 2249 + 500 available covers the amount; the fee takes the rest of available and then a reserve.
    const { dispute } = await openDispute(stack, session.id, { reason: 'general' });
    expect([dispute.fromAvailableInCents, dispute.fromReservesInCents]).toEqual([2 * HELD + 500, TOTAL + FEE - 2 * HELD - 500]);
    const before = await balance(stack, biz.testKey);
    await enterDisputeDecision(stack.orm.em.fork(), stack.temporal, dispute.id, 'won');
    expect(await balance(stack, biz.testKey)).toMatchObject({ availableInCents: before.availableInCents + TOTAL, reservedInCents: before.reservedInCents });
    await expectLedgerVerified(stack);
  });
});
