/**
 * `ledger verify` catches each drift of the money chargebacks move: books made by real payments,
 * withdrawals and chargebacks verify clean, and then a test corrupts them the way a bug would, one way
 * at a time, and expects verify to name it. On a database of its own (the corruptions stay; ledger rows
 * are append-only).
 */
import { newId } from '../../src/domain/ids.js';
import { enterDisputeDecision } from '../../src/modules/disputes/index.js';
import { verifyLedger, lockBalance, postTransaction, type Owner } from '../../src/modules/ledger/index.js';
import { balance, FEE, openDispute, TOTAL } from '../support/disputes.js';
import { paidSession, sql } from '../support/payments.js';
import { addWalletMethod, testMode, WALLET_EMAIL } from '../support/seed.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { ownDatabase: 'verify_drift' });

/** Every problem verify reports about this business or its disputes and reserves. */
async function problemsOf(...subjects: string[]): Promise<string[]> {
  const { problems } = await verifyLedger(stack.orm.em.fork());
  return problems.filter((p) => subjects.some((s) => p.includes(s)));
}

async function withdraw(biz: TestBusiness, cents: number): Promise<void> {
  await addWalletMethod(stack.orm, biz.id);
  const res = await stack.http.post('/api/withdrawals', { amount: cents / 100, destinationType: 'wallet', destinationDetails: { walletEmail: WALLET_EMAIL } }, { key: biz.testKey });
  expect(res.status).toBe(201);
}

/** Withdraws all that is available, so the next chargeback is paid from reserves and owed. */
async function withdrawAll(biz: TestBusiness): Promise<void> {
  await withdraw(biz, (await balance(stack, biz.testKey)).availableInCents);
}

/** A bug's posting: `available` lowered by `cents` though nothing allows it (the rule in postTransaction let through by hand). */
async function overdraw(owner: Owner, cents: number): Promise<void> {
  await stack.orm.em.fork().transactional(async (tx) => {
    const locked = await lockBalance(tx, owner);
    postTransaction(tx, locked, { kind: 'test.overdraw', referenceId: newId('ltx'), lines: [{ account: 'available', amount: -cents }, { account: 'payouts_clearing', amount: cents }], overdraw: true });
  });
}

describe('ledger verify catches each drift', () => {
  it('available below zero, once a chargeback that was owed in full has been won and its debt repaid', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    const session = await paidSession(stack, biz);
    await withdrawAll(biz);
    const { dispute } = await openDispute(stack, session.id, { reason: 'fraudulent' });
    expect(dispute.owedInCents).toBe(TOTAL + FEE);
    await enterDisputeDecision(stack.orm.em.fork(), stack.temporal, dispute.id, 'won');
    await paidSession(stack, biz); // repays the fee still owed, and leaves the rest available
    const { availableInCents } = await balance(stack, biz.testKey);
    expect(availableInCents).toBe(4498 - FEE);
    expect(await problemsOf(biz.id, dispute.id)).toEqual([]);

    // A bug takes available to minus the disputed amount. Every chargeback ever owed 6158 together, but
    // nothing is owed now: the allowance is the debt outstanding, 0.
    await overdraw(testMode(biz.id), availableInCents + TOTAL);
    expect(await problemsOf(biz.id)).toEqual([
      expect.stringMatching(new RegExp(`^business ${biz.id} \\(test\\): ledger transaction ltx_\\w+ \\(test.overdraw ltx_\\w+\\) took available to -${TOTAL}, further below zero than the 0 its chargebacks then left owing$`)),
    ]);
  });

  it('available below zero by more than a chargeback still owes, while it owes', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    const session = await paidSession(stack, biz);
    await withdrawAll(biz);
    await openDispute(stack, session.id, { reason: 'fraudulent' });
    expect(await problemsOf(biz.id)).toEqual([]);
    await overdraw(testMode(biz.id), 1);
    expect(await problemsOf(biz.id)).toEqual([expect.stringContaining(`took available to -${TOTAL + FEE + 1}, further below zero than the ${TOTAL + FEE} its chargebacks then left owing`)]);
  });

  it("a chargeback's postings that do not split into its amount and its fee as its row says", async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    const { dispute } = await openDispute(stack, session.id, { reason: 'general' });
    expect(await problemsOf(dispute.id)).toEqual([]);
    // The totals still match (amount + fee, and where they came from): only the split is wrong.
    await sql(stack, 'update disputes set amount_in_cents = amount_in_cents - 100, fee_in_cents = fee_in_cents + 100 where id = ?', [dispute.id]);
    expect(await problemsOf(dispute.id)).toEqual([
      `dispute ${dispute.id} (needs_response) is an amount of ${TOTAL - 100} (0 of it from reserves) and a fee of ${FEE + 100}, but its postings moved ${TOTAL} (0 from reserves) and ${FEE}`,
    ]);
  });

  it("a reserve's consumed total that the refunds and chargebacks that took from it do not add up to", async () => {
    const biz = await stack.business({ reserveBps: 5000 }); // 2249 of each payment held, 2249 available
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    await withdraw(biz, 1498);
    // 3000 available: the chargeback's 6158 takes the older reserve whole and 909 of the newer one.
    const { dispute } = await openDispute(stack, session.id, { reason: 'general' });
    expect(dispute.fromReservesInCents).toBe(TOTAL + FEE - 3000);
    const [older, newer] = await sql(stack, 'select id, consumed_amount_in_cents::int as consumed from reserves where business_id = ? order by reserved_at, id', [biz.id]);
    expect(await problemsOf(biz.id, dispute.id, older.id, newer.id)).toEqual([]);
    // The wrong reserve marked: 100 of the older one's share counted against the newer one instead.
    // Each still holds what its status says, and together what `reserved` says.
    await sql(stack, `update reserves set consumed_amount_in_cents = consumed_amount_in_cents - 100, status = 'partially_released' where id = ?`, [older.id]);
    await sql(stack, `update reserves set consumed_amount_in_cents = consumed_amount_in_cents + 100, status = 'partially_released' where id = ?`, [newer.id]);
    expect((await problemsOf(biz.id, dispute.id, older.id, newer.id)).sort()).toEqual(
      [
        `reserve ${older.id} consumed ${older.consumed - 100}, but the refunds and chargebacks that took from it add up to ${older.consumed}`,
        `reserve ${newer.id} consumed ${newer.consumed + 100}, but the refunds and chargebacks that took from it add up to ${newer.consumed}`,
      ].sort(),
    );
  });
});
