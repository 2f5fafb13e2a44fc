import { DomainError } from '../../src/domain/errors.js';
import { toApiError } from '../../src/http/errors.js';
import { LedgerInvariantError, transfer, type PostingLine } from '../../src/modules/ledger/accounts.rules.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  postingStatement,
  lockBalance,
  postTransaction,
  readBalance,
  type Owner,
  type Posting,
  verifyLedger,
} from '../../src/modules/ledger/index.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({}, { worker: false });

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

  /** The covered move on its own, as the withdrawal create runs it with its own rows added. */
  async function postCovered(tx: EntityManager, owner: Owner, posting: Posting, refusal: () => Error): Promise<void> {
    const move = postingStatement(owner, posting, { covered: true });
    const [{ n }] = await tx.execute<{ n: number }[]>(`with ${move.ctes} select count(*)::int as n from moved`, move.params);
    if (n !== 1) throw refusal();
  }

  it('a covered move (postingStatement): moves racing locked moves on one balance never overdraw, and each refusal writes nothing', async () => {
    const { id } = await stack.business();
    const owner = { businessId: id, livemode: false };
    const move = (n: number, lines: PostingLine[]) => ({ kind: 'test.move', referenceId: `${id}-${n}`, lines });
    const IN = (cents: number) => [{ account: 'processor_clearing', amount: -cents }, { account: 'available', amount: cents }] as PostingLine[];
    const OUT = (cents: number) => transfer('available', 'pending_withdrawal', cents);
    // The withdrawal route's refusal. Only it counts as a refusal below: a rollback, a deadlock or a
    // serialization failure is a fault, not a move that did not fit.
    const refusal = () => new DomainError('insufficient_available_balance');
    const isRefusal = (err: unknown) => {
      const answer = toApiError(err);
      return (
        err instanceof DomainError &&
        answer?.code === 'insufficient_available_balance' &&
        answer.status === 400 &&
        answer.type === 'validation_error' &&
        answer.message === 'Insufficient available balance'
      );
    };
    // No balance row yet: nothing covers a withdrawal, and the refusal rolls its ledger rows back.
    const first = await stack.orm.em.fork().transactional((tx) => postCovered(tx, owner, move(0, OUT(1)), refusal)).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(DomainError);
    expect(toApiError(first)).toMatchObject({ code: 'insufficient_available_balance', status: 400, type: 'validation_error', message: 'Insufficient available balance' });
    // 10 credits of 100 under the lock, racing 30 conditional debits of 50: at most 20 debits can fit.
    const credits = Array.from({ length: 10 }, (_, n) =>
      stack.orm.em.fork().transactional(async (tx) => postTransaction(tx, await lockBalance(tx, owner), move(100 + n, IN(100)))),
    );
    const debits = Array.from({ length: 30 }, (_, n) =>
      stack.orm.em
        .fork()
        .transactional((tx) => postCovered(tx, owner, move(200 + n, OUT(50)), refusal))
        .then(
          () => true,
          (err: unknown) => {
            if (isRefusal(err)) return false;
            throw err;
          },
        ),
    );
    const [, outcomes] = await Promise.all([Promise.all(credits), Promise.all(debits)]);
    const accepted = outcomes.filter(Boolean).length;
    const balance = (await readBalance(stack.orm.em.fork(), owner))!;
    expect(balance.available).toBe(1000 - 50 * accepted);
    expect(balance.pendingWithdrawal).toBe(50 * accepted);
    expect(balance.available).toBeGreaterThanOrEqual(0);
    const [{ n }] = await stack.orm.em
      .getConnection()
      .execute(`select count(*)::int as n from ledger_transactions where business_id = ? and reference_id like ?`, [id, `${id}-2%`]);
    expect(n).toBe(accepted);
    expect((await verifyLedger(stack.orm.em.fork())).problems).toEqual([]);
  });

  it('keeps ledger rows append-only', async () => {
    await expect(stack.orm.em.getConnection().execute('delete from ledger_entries')).rejects.toThrow(/append-only/);
  });
});
