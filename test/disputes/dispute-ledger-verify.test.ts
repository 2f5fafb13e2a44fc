/**
 * `ledger verify`'s dispute invariants fail when they should: on a database of its own (the rows here
 * are ones no real move writes, and ledger rows cannot be deleted), a balance taken below zero by
 * something other than a chargeback, and disputes whose postings do not match their funding or outcome.
 */
import { randomUUID } from 'node:crypto';
import { newId } from '../../src/domain/ids.js';
import { verifyLedger, lockBalance, postTransaction } from '../../src/modules/ledger/index.js';
import { sql } from '../support/payments.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false, fabricatesState: true });

async function session(businessId: string): Promise<string> {
  const id = randomUUID();
  await sql(
    stack,
    `insert into checkout_sessions (id, business_id, livemode, user_id, status, subtotal, fee, total, description, customer_email, metadata, expires_at, created_at, updated_at)
     values (?, ?, false, 'key_x', 'pending', 1000, 0, 1000, 'fabricated', 'a@b.example', '{}', now(), now(), now())`,
    [id, businessId],
  );
  return id;
}

async function dispute(businessId: string, status: string, funding: [number, number, number] | null): Promise<string> {
  const id = newId('dsp');
  await sql(
    stack,
    `insert into disputes (id, business_id, livemode, checkout_session_id, amount_in_cents, fee_in_cents, reason, status, evidence, evidence_due_by,
       closed_at, from_available_in_cents, from_reserves_in_cents, owed_in_cents, created_at, updated_at)
     values (?, ?, false, ?, 1000, 500, 'general', ?, '{}', now(), case when ? in ('won', 'lost', 'warning_closed') then now() end, ?, ?, ?, now(), now())`,
    [id, businessId, await session(businessId), status, status, ...(funding ?? [null, null, null])],
  );
  return id;
}

describe('ledger verify, disputes', () => {
  it('names a balance below zero by more than its chargebacks owe, and disputes whose postings do not match', async () => {
    const { id: businessId } = await stack.business();
    const owner = { businessId, livemode: false };
    // A move that is no chargeback, overdrawing anyway (the rule in postTransaction let through by hand).
    await stack.orm.em.fork().transactional(async (tx) => {
      const balance = await lockBalance(tx, owner);
      postTransaction(tx, balance, { kind: 'test.overdraw', referenceId: businessId, lines: [{ account: 'available', amount: -700 }, { account: 'payouts_clearing', amount: 700 }], overdraw: true });
    });
    const unposted = await dispute(businessId, 'needs_response', [0, 0, 1500]);
    const wonWithoutReturn = await dispute(businessId, 'won', [0, 0, 1500]);
    const quietInquiry = await dispute(businessId, 'warning_needs_response', null);
    const { problems } = await verifyLedger(stack.orm.em.fork());
    const ours = problems.filter((p) => p.includes(businessId) || [unposted, wonWithoutReturn, quietInquiry].some((d) => p.includes(d)));
    // The two fabricated chargebacks "owe" 3000 together, but they posted nothing, so no debt ever entered
    // the books: the -700 is no chargeback's, and their postings are missing.
    expect(ours).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^business ${businessId} \\(test\\): ledger transaction ltx_\\w+ \\(test.overdraw ${businessId}\\) took available to -700, further below zero than the 0 its chargebacks then left owing$`)),
        `dispute ${unposted} (needs_response) was funded 1500 from available and 0 from reserves, but 0 withdrawal(s) posted 0 and 0, and its reserve shares add up to 0`,
        `dispute ${unposted} (needs_response) is an amount of 1000 (0 of it from reserves) and a fee of 500, but its postings moved 0 (0 from reserves) and 0`,
        `dispute ${wonWithoutReturn} (won) of 1000 had 0 reinstatement(s) returning 0 to available and 0 to reserves, whose shares record 0 given back`,
      ]),
    );
    expect(ours.some((p) => p.includes(quietInquiry))).toBe(false);

    const { id: other } = await stack.business();
    await stack.orm.em.fork().transactional(async (tx) => {
      const balance = await lockBalance(tx, { businessId: other, livemode: false });
      postTransaction(tx, balance, { kind: 'test.overdraw', referenceId: other, lines: [{ account: 'available', amount: -700 }, { account: 'payouts_clearing', amount: 700 }], overdraw: true });
    });
    expect((await verifyLedger(stack.orm.em.fork())).problems).toContain(
      `business ${other} (test): available is -700, below zero though no chargeback ever left it owing`,
    );
  });
});
