import type { MikroORM } from '@mikro-orm/postgresql';
import { seedHistory, vacuumAnalyze, type SeededHistory } from '../../bench/history/seed.js';
import { newId } from '../../src/domain/ids.js';
import { addWithdrawalMethod } from '../../src/modules/withdrawals/index.js';
import { lockBalance, postTransaction, readBalance, type Owner } from '../../src/modules/ledger/index.js';
import { TEST_WEBHOOK_ENCRYPTION_KEY, type Stack, type TestBusiness } from './stack.js';

/**
 * Money a test business can spend, without going through a payment: a balanced credit from processor
 * clearing to `available`, posted the way every money move is (under the balance lock).
 */
export async function creditAvailable(orm: MikroORM, owner: Owner, cents: number): Promise<void> {
  await orm.em.fork().transactional(async (tx) => {
    const balance = await lockBalance(tx, owner);
    postTransaction(tx, balance, {
      kind: 'test.credit',
      referenceId: newId('ltx'),
      lines: [
        { account: 'processor_clearing', amount: -cents },
        { account: 'available', amount: cents },
      ],
    });
  });
}

export const testMode = (businessId: string): Owner => ({ businessId, livemode: false });

/** The wallet `addWalletMethod` registers unless told otherwise. */
export const WALLET_EMAIL = 'payouts@merchant.example';

/**
 * What the admin CLI does for a merchant: a payout method. A withdrawal is paid only to one the business
 * registered, so a test registers every destination it pays. Returns the method's id.
 */
export async function addWalletMethod(orm: MikroORM, businessId: string, walletEmail = WALLET_EMAIL): Promise<string> {
  return (await addWithdrawalMethod(orm.em.fork(), businessId, 'wallet', { walletEmail })).method.id;
}

/** A crypto payout method (`withdrawal-method add --type crypto`). Returns the method's id. */
export async function addCryptoMethod(
  orm: MikroORM,
  businessId: string,
  details: { cryptoCoin: string; cryptoNetwork: string; cryptoAddress: string },
): Promise<string> {
  return (await addWithdrawalMethod(orm.em.fork(), businessId, 'crypto', details)).method.id;
}

export async function balanceOf(orm: MikroORM, owner: Owner) {
  const balance = await readBalance(orm.em.fork(), owner);
  return {
    available: balance?.available ?? 0,
    reserved: balance?.reserved ?? 0,
    pendingWithdrawal: balance?.pendingWithdrawal ?? 0,
    refundsInFlight: balance?.refundsInFlight ?? 0,
  };
}

/** The sums of a business's ledger entries, account by account (platform accounts included). */
export async function entrySums(orm: MikroORM, owner: Owner): Promise<Record<string, number>> {
  const rows = await orm.em
    .getConnection()
    .execute<{ account: string; sum: string }[]>(
      `select account, sum(amount)::text as sum from ledger_entries where business_id = ? and livemode = ? group by account`,
      [owner.businessId, owner.livemode],
    );
  return Object.fromEntries(rows.map((r) => [r.account, Number(r.sum)]));
}

/** A new business with the history bench/history/seed.ts writes: `sessions` paid ones and what goes with them, analysed. */
export async function businessWithHistory(stack: Stack, sessions: number): Promise<{ biz: TestBusiness; seeded: SeededHistory }> {
  const biz = await stack.business();
  const seeded = await seedHistory(stack.orm.em.fork(), { businessId: biz.id, livemode: false }, {
    sessions,
    webhookEncryptionKey: Buffer.from(TEST_WEBHOOK_ENCRYPTION_KEY, 'base64'),
  });
  await vacuumAnalyze(stack.orm.em.fork());
  return { biz, seeded };
}
