import { LedgerInvariantError } from '../../src/modules/ledger/accounts.js';
import { lockBalance, postTransaction, readBalance } from '../../src/modules/ledger/ledger.service.js';
import { startStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({}, { worker: false });
});
afterAll(async () => stack?.stop());

describe('ledger postings', () => {
  it('serialises concurrent moves on one balance under its row lock', async () => {
    const { id } = await stack.business();
    const owner = { businessId: id, livemode: false };
    const credit = (n: number) =>
      stack.orm.em.fork().transactional(async (tx) => {
        const balance = await lockBalance(tx, owner);
        postTransaction(tx, balance, {
          kind: 'test.credit',
          referenceId: `${id}-${n}`,
          lines: [
            { account: 'processor_clearing', amount: -100 },
            { account: 'available', amount: 100 },
          ],
        });
      });
    await Promise.all(Array.from({ length: 20 }, (_, n) => credit(n)));
    const balance = await readBalance(stack.orm.em.fork(), owner);
    expect(balance?.available).toBe(2000);
    const [{ sum }] = await stack.orm.em
      .getConnection()
      .execute(`select sum(amount)::int as sum from ledger_entries where business_id = ? and account = 'available'`, [id]);
    expect(sum).toBe(2000);
  });

  it('refuses a move that would take a business account below zero, writing nothing', async () => {
    const { id } = await stack.business();
    const owner = { businessId: id, livemode: false };
    await expect(
      stack.orm.em.fork().transactional(async (tx) => {
        const balance = await lockBalance(tx, owner);
        postTransaction(tx, balance, {
          kind: 'test.overdraw',
          referenceId: id,
          lines: [
            { account: 'available', amount: -1 },
            { account: 'payouts_clearing', amount: 1 },
          ],
        });
      }),
    ).rejects.toThrow(LedgerInvariantError);
    const rows = await stack.orm.em.getConnection().execute('select 1 from ledger_transactions where business_id = ?', [id]);
    expect(rows).toHaveLength(0);
  });

  it('keeps ledger rows append-only', async () => {
    await expect(stack.orm.em.getConnection().execute('delete from ledger_entries')).rejects.toThrow(/append-only/);
  });
});
