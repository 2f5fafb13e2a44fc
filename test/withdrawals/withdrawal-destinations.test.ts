import { runCommand, UsageError } from '../../src/cli/commands.js';
import type { TestBusiness } from '../support/stack.js';
import { useStack } from '../support/use-stack.js';
import { addCryptoMethod, addWalletMethod, balanceOf, creditAvailable, testMode } from '../support/seed.js';

/**
 * A withdrawal goes only to a destination the business registered: anything else is 400
 * "Withdrawal method not found" and writes nothing. Methods are added, listed and removed with the
 * admin CLI, run here in-process (`runCommand`) against the same database.
 */
const stack = useStack({}, { worker: false });

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const TRON = 'TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW';
const NOT_FOUND = { type: 'validation_error', message: 'Withdrawal method not found' };

const wallet = (walletEmail: string) => ({ amount: 10, destinationType: 'wallet', destinationDetails: { walletEmail } });
const crypto = (cryptoCoin: string, cryptoNetwork: string, cryptoAddress: string) => ({
  amount: 10,
  destinationType: 'crypto',
  destinationDetails: { cryptoCoin, cryptoNetwork, cryptoAddress },
});
const withdraw = (biz: TestBusiness, body: unknown, key = biz.testKey) => stack.http.post('/api/withdrawals', body, { key });
const admin = (args: string[], options: Record<string, string> = {}) => runCommand(stack.orm.em.fork(), args, options);
const withdrawalRows = async (businessId: string) =>
  Number((await stack.orm.em.fork().execute('select count(*) as n from withdrawals where business_id = ?', [businessId]))[0].n);

async function funded(): Promise<TestBusiness> {
  const biz = await stack.business();
  await creditAvailable(stack.orm, testMode(biz.id), 10_000);
  return biz;
}

/** Refused with "Withdrawal method not found", and nothing written: no withdrawal, the balance untouched. */
async function expectRefused(biz: TestBusiness, body: unknown) {
  const res = await withdraw(biz, body);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ success: false, error: { ...NOT_FOUND, requestId: expect.stringMatching(/^req_/) } });
  expect(await withdrawalRows(biz.id)).toBe(0);
  expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 10_000, pendingWithdrawal: 0 });
}

describe('a withdrawal names a registered destination', () => {
  it('refuses a wallet e-mail the business never registered, writing nothing', async () => {
    const biz = await funded();
    await addWalletMethod(stack.orm, biz.id, 'payouts@merchant.example');
    await expectRefused(biz, wallet('attacker@elsewhere.example'));
    await expectRefused(biz, crypto('USDC', 'ERC20', EVM)); // a wallet method allows no crypto withdrawal
  });

  it('accepts the registered e-mail in another case, and pays it as registered', async () => {
    const biz = await funded();
    await addWalletMethod(stack.orm, biz.id, 'Payouts@Merchant.example');
    const res = await withdraw(biz, wallet('PAYOUTS@merchant.EXAMPLE'));
    expect(res.status).toBe(201);
    expect(res.body.data.destinationDetails).toBe('{"walletEmail":"Payouts@Merchant.example"}');
    expect(await balanceOf(stack.orm, testMode(biz.id))).toMatchObject({ available: 9_000, pendingWithdrawal: 1_000 });
  });

  it('matches an ERC20 address in any case, but coin and network exactly', async () => {
    const biz = await funded();
    await addCryptoMethod(stack.orm, biz.id, { cryptoCoin: 'USDC', cryptoNetwork: 'ERC20', cryptoAddress: EVM });
    await expectRefused(biz, crypto('USDT', 'ERC20', EVM));
    await expectRefused(biz, crypto('USDC', 'ERC20', `${EVM.slice(0, -1)}8`));
    await expectRefused(biz, wallet('payouts@merchant.example'));
    const res = await withdraw(biz, crypto('USDC', 'ERC20', EVM.toLowerCase()));
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.data.destinationDetails)).toEqual({ cryptoCoin: 'USDC', cryptoNetwork: 'ERC20', cryptoAddress: EVM });
  });

  it('matches a TRC20 address exactly: its letter case is part of the address', async () => {
    const biz = await funded();
    await addCryptoMethod(stack.orm, biz.id, { cryptoCoin: 'USDT', cryptoNetwork: 'TRC20', cryptoAddress: TRON });
    await expectRefused(biz, crypto('USDT', 'TRC20', TRON.replace('n', 'N')));
    await expectRefused(biz, crypto('USDC', 'TRC20', TRON));
    expect((await withdraw(biz, crypto('USDT', 'TRC20', TRON))).status).toBe(201);
  });

  it("refuses another business's method, and lets a method serve live mode too", async () => {
    const owner = await funded();
    const other = await funded();
    await addWalletMethod(stack.orm, owner.id, 'owner@merchant.example');
    await expectRefused(other, wallet('owner@merchant.example'));
    await creditAvailable(stack.orm, { businessId: owner.id, livemode: true }, 5_000);
    const live = await withdraw(owner, wallet('owner@merchant.example'), owner.liveKey);
    expect(live.status).toBe(201);
    expect(await balanceOf(stack.orm, { businessId: owner.id, livemode: true })).toMatchObject({ available: 4_000, pendingWithdrawal: 1_000 });
  });
});

describe('admin CLI: withdrawal-method add, list, remove', () => {
  it('adds a method once in any spelling, lists it, and after remove it no longer works', async () => {
    const biz = await funded();
    const added = await admin(['withdrawal-method', 'add', biz.id], { type: 'wallet', 'wallet-email': 'Pay@Shop.example' });
    const { withdrawalMethod: method } = added.json as { withdrawalMethod: { id: string } };
    expect(added.text).toBe(`Added wallet withdrawal method ${method.id} to ${biz.id}: wallet Pay@Shop.example`);
    const again = await admin(['withdrawal-method', 'add', biz.id], { type: 'wallet', 'wallet-email': 'pay@shop.example' });
    expect(again.json).toMatchObject({ added: false, withdrawalMethod: { id: method.id } });
    const crypto_ = await admin(['withdrawal-method', 'add', biz.id], { type: 'crypto', coin: 'USDT', network: 'TRC20', address: TRON });
    const cryptoId = (crypto_.json as { withdrawalMethod: { id: string } }).withdrawalMethod.id;

    const list = await admin(['withdrawal-method', 'list', biz.id]);
    expect(list.text).toBe(`${method.id}  wallet Pay@Shop.example\n${cryptoId}  crypto USDT TRC20 ${TRON}`);

    const first = await withdraw(biz, wallet('pay@shop.example'));
    expect(first.status).toBe(201);
    const removed = await admin(['withdrawal-method', 'remove', method.id]);
    expect(removed.text).toContain(`Removed ${method.id} (wallet Pay@Shop.example) from ${biz.id}`);
    const refused = await withdraw(biz, wallet('pay@shop.example'));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject(NOT_FOUND);
    // The withdrawal accepted before the removal stands; the other method still works.
    expect((await stack.http.get(`/api/withdrawals/${first.body.data.id}`, { key: biz.testKey })).body.data.status).toBe('pending');
    expect((await withdraw(biz, crypto('USDT', 'TRC20', TRON))).status).toBe(201);
    expect((await admin(['withdrawal-method', 'list', biz.id])).text).toBe(`${cryptoId}  crypto USDT TRC20 ${TRON}`);
  });

  it('refuses a destination no withdrawal could name, and says which option is wrong', async () => {
    const biz = await stack.business();
    const attempts: [Record<string, string>, string][] = [
      [{ type: 'wallet', 'wallet-email': 'not-an-email' }, '--wallet-email: Invalid email format'],
      [{ type: 'wallet' }, '--wallet-email: required'],
      [{ type: 'crypto', coin: 'BTC', network: 'ERC20', address: EVM }, '--coin: Crypto coin must be one of USDT, USDC'],
      [{ type: 'crypto', coin: 'USDT', network: 'TRC20', address: EVM }, '--address: TRC20 address must be T followed by 33 base58 characters'],
      [{ type: 'bank' }, '--type: wallet or crypto'],
    ];
    for (const [options, message] of attempts) {
      await expect(admin(['withdrawal-method', 'add', biz.id], options)).rejects.toThrow(new UsageError(message));
    }
    expect((await admin(['withdrawal-method', 'list', biz.id])).text).toBe('No withdrawal methods: this business cannot withdraw.');
  });
});
